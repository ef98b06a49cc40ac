SELECT id, name, key_type, int_value, str_value, machine_id, trace_id FROM metadata
WHERE name NOT IN ('trace_size_bytes', 'trace_uuid') ORDER BY id;
SELECT slice.ts, slice.name, track.name AS track,
  extract_arg(slice.arg_set_id, 'chrome_trigger.name_hash') AS hash
FROM slice JOIN track ON slice.track_id = track.id WHERE track.type = 'triggers';
