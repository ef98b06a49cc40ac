-- Perfetto v58.2's answer as its sources give it (ftrace_parser.cc; not yet run through
-- trace_processor_shell, which was being built): workqueue_execute_start/end
-- make slices of category workqueue named by the work's function on the worker thread's track
-- (arg cpu; an end with nothing open is misplaced), signal_generate an instant on the track of
-- the thread signalled and signal_deliver one on the receiver's (arg signal.sig).
SELECT s.ts, s.dur, s.name, s.category, s.depth, thread.tid,
  (SELECT group_concat(key || '=' || coalesce(string_value, int_value), ',') FROM args a
   WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN thread_track t ON s.track_id = t.id JOIN thread USING (utid)
ORDER BY s.ts;
SELECT t.id, t.name, t.type, thread.tid FROM thread_track t JOIN thread USING (utid) ORDER BY t.id;
SELECT name, count(*) AS n FROM ftrace_event GROUP BY name ORDER BY name;
SELECT name, value FROM stats WHERE name = 'misplaced_end_event' ORDER BY name;
