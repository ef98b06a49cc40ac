-- trace: systrace/atrace_async_slices.systrace
-- The markers of golden/linux/atrace_async_slices.pbtxt as systrace text lines (1 us steps
-- from 1 s): the same slices, tracks and lanes. Expected output: trace_processor_shell v58.2.
SELECT s.id, s.ts, s.dur, s.name, s.depth, s.parent_id, t.name AS track, t.type, s.track_id,
  (SELECT group_concat(key || '=' || display_value, ';') FROM args a
   WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.id;
SELECT t.id, t.name, t.type, t.track_group_id,
  (SELECT group_concat(key || '=' || display_value, ';') FROM args a
   WHERE a.arg_set_id = t.dimension_arg_set_id) AS dims
FROM track t ORDER BY t.id;
SELECT c.ts, c.value, c.track_id, extract_arg(c.arg_set_id, 'utid') AS utid FROM counter c;
SELECT utid, tid, upid FROM thread ORDER BY utid;
