-- Expected output: trace_processor_shell v58.2 on this trace.
SELECT s.id, s.ts, s.dur, s.name, s.category, s.depth, t.name AS track, t.type, s.track_id,
  (SELECT group_concat(key || '=' || coalesce(display_value, 'NULL') || ':' || value_type, ';') FROM args a
   WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.id;
SELECT t.id, t.name, t.type, t.track_group_id,
  (SELECT group_concat(key || '=' || display_value, ';') FROM args a
   WHERE a.arg_set_id = t.dimension_arg_set_id) AS dims
FROM track t ORDER BY t.id;
SELECT ts, name, cpu, utid, (SELECT group_concat(key || '=' || display_value, ';') FROM args a WHERE a.arg_set_id = r.arg_set_id) AS args FROM ftrace_event r ORDER BY id;
SELECT utid, tid FROM thread ORDER BY utid;
