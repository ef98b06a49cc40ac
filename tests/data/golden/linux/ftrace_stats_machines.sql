-- Per-CPU ftrace stats of two machines: rows of their own per machine_id, deltas within one.
-- The same as trace_processor_shell v58.2.
SELECT name, idx, value, machine_id, trace_id FROM stats WHERE name GLOB 'ftrace_cpu_entries_*' OR name GLOB 'ftrace_cpu_overrun_*' ORDER BY name, machine_id, idx;
