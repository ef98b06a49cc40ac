-- Perfetto v58.2's answer as its sources give it (ftrace_parser.cc; not yet run through
-- trace_processor_shell, which was being built): sys_enter/sys_exit make a
-- slice on the thread's track named by the call in the x86_64 table (system_info's machine),
-- sys_N where the table has none, none past 550; args[i] under flat key args, ret; a sys_write
-- ends at the thread's print event (truncated_sys_write_duration) and its own exit is ignored;
-- sys_rt_sigreturn is an instant.
SELECT s.ts, s.dur, s.name, s.category, s.depth, thread.tid,
  (SELECT group_concat(flat_key || '|' || key || '=' || int_value || ':' || value_type, ',')
   FROM args a WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN thread_track t ON s.track_id = t.id JOIN thread USING (utid)
ORDER BY s.ts;
SELECT name, count(*) AS n FROM ftrace_event GROUP BY name ORDER BY name;
SELECT name, value FROM stats WHERE name IN ('misplaced_end_event', 'truncated_sys_write_duration') ORDER BY name;
-- A repeated field of a raw row (sys_enter's args) is one arg: the last value, at the first's
-- place.
SELECT e.ts, e.name,
  (SELECT group_concat(key || '=' || int_value || ':' || value_type, ',') FROM args a
   WHERE a.arg_set_id = e.arg_set_id) AS args
FROM ftrace_event e WHERE e.ts <= 130 ORDER BY e.ts;
