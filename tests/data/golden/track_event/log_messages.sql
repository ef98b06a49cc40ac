SELECT s.name, a.flat_key, a.key, a.int_value, a.string_value, a.value_type, a.display_value
FROM slice s LEFT JOIN args a USING (arg_set_id) ORDER BY s.id, a.id;
SELECT name, extract_arg(arg_set_id, 'track_event.log_message') AS body FROM slice ORDER BY id;
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
SELECT id, ts, utid, prio, tag, msg FROM android_logs ORDER BY id;
