-- The kernel's atrace-style events: the display and GPU drivers' tracing_mark_write kinds (mdss's
-- trace_begin 1/0, sde's trace_type letter or trace_begin, dpu's type with the payload's pid
-- ignored but for counters, g2d, mali, samsung, lwis named by func_name, panel_write_generic) and
-- the systrace zero event (flag 1 begin, 2 end, 4 a counter), each read as the atrace marker it
-- stands for: slices and instants on the writer's thread, counters on the payload's process; no
-- phase (mdss without trace_begin, a type outside B/E/C/I, a zero flag of 8, g2d without type)
-- counts systrace_parse_failure. Every event is also its ftrace_event row. Checked with
-- scripts/oracle_diff.sh against trace_processor_shell v58.2.
SELECT s.ts, s.dur, s.name, s.depth, t.type, extract_arg(t.dimension_arg_set_id, 'utid') AS utid FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
SELECT c.ts, c.value, t.name, t.type FROM counter c JOIN track t ON c.track_id = t.id ORDER BY c.ts;
SELECT utid, tid, upid, name FROM thread ORDER BY utid;
SELECT upid, pid, name FROM process ORDER BY upid;
SELECT ts, name, arg_set_id FROM ftrace_event ORDER BY ts;
SELECT name, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' ORDER BY name;
