-- ConcurrentSessionEvent packets as state tracks; checked against Perfetto's
-- trace_processor_shell.
SELECT t.id, t.name, t.type, extract_arg(t.dimension_arg_set_id, 'session_id') AS session
FROM track t ORDER BY t.id;
SELECT s.id, s.ts, s.dur, s.track_id, s.value, s.category, extract_arg(s.arg_set_id, 'consumer_uid') AS uid,
  extract_arg(s.arg_set_id, 'num_data_sources') AS n
FROM state s ORDER BY s.id;
SELECT name, value FROM stats WHERE name = 'concurrent_session_event_unknown_state';
SELECT ts, name, extract_arg(arg_set_id, 'state') AS state FROM _trace_import_logs ORDER BY ts;
SELECT count(*) AS state_tracks FROM state_track;
