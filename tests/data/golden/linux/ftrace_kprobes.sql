-- kprobe_event (FtraceEvent 542): a KPROBE_TYPE_BEGIN begins a slice named by the probe on the
-- writer's thread track, END ends it, INSTANT makes a zero-length slice, UNKNOWN only its
-- ftrace_event row (args name and type, the enum as int); an end with nothing open is dropped
-- without a stat. The same as trace_processor_shell v58.2 (scripts/oracle_diff.sh), Perfetto's
-- kprobes_slice and kprobes_instant cases together.
SELECT s.ts, s.dur, s.name, s.depth, s.category, t.type, extract_arg(t.dimension_arg_set_id, 'utid') AS utid FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
SELECT e.ts, e.name, e.utid, a.key, a.value_type, a.int_value, a.string_value FROM ftrace_event e JOIN args a USING (arg_set_id) ORDER BY e.ts, a.id;
SELECT utid, tid FROM thread ORDER BY utid;
SELECT name, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' ORDER BY name;
