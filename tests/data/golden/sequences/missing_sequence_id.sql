SELECT id, ts, dur, name, track_id FROM slice ORDER BY id;
SELECT name, severity, source, value FROM stats WHERE name = 'track_event_missing_sequence_id';
SELECT id, ts, byte_offset IS NOT NULL AS has_offset, severity, name FROM _trace_import_logs;
SELECT id, name, type FROM track ORDER BY id;
