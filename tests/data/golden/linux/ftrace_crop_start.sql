-- Perfetto's answer (trace_processor_shell v58.2 on the same trace, its default crop: drop
-- before tracing started, soft drop before every CPU's data is complete).
SELECT ts, dur, cpu, utid, end_state FROM sched ORDER BY ts, cpu;
SELECT ts, dur, utid, state FROM thread_state ORDER BY ts, utid;
SELECT ts, name, cpu FROM ftrace_event ORDER BY ts, cpu;
SELECT ts, name, dur FROM slice ORDER BY ts;
SELECT ts, value FROM counter ORDER BY ts;
SELECT name, value FROM stats WHERE name IN ('ftrace_packet_before_tracing_start',
  'compact_sched_switch_skipped') ORDER BY name;
SELECT name, int_value FROM metadata WHERE name IN ('tracing_started_ns',
  'ftrace_latest_data_start_ns') ORDER BY name;
