-- trace: chrome/unknown_extension_fields.pb
-- Checked against Perfetto's trace_processor_shell. The trace (written by a small script, as
-- protoc's text format cannot hold unknown fields) has TrackEvents with a field number no schema
-- knows at the top level and inside chrome_mojo_event_info: each counts in
-- unknown_extension_fields, the known fields still become args.
SELECT s.name, a.key, a.display_value FROM slice s LEFT JOIN args a USING (arg_set_id) ORDER BY s.ts, a.key;
SELECT name, severity, source, value FROM stats WHERE name = 'unknown_extension_fields';
