SELECT id, ts, dur, name, track_id FROM slice ORDER BY id;
SELECT name, idx, severity, source, value FROM stats WHERE value > 0 and name not like '%duration_ns' ORDER BY name;
SELECT l.id, ts, byte_offset, severity, name, a.key, a.int_value FROM _trace_import_logs l left join args a using(arg_set_id);
SELECT id, name, type, parent_id FROM track ORDER BY id;
