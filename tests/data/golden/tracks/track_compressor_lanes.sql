-- Checked against Perfetto's trace_processor_shell (same CSV).
SELECT s.ts, s.dur, s.name, s.depth, s.track_id, t.name AS track FROM slice s JOIN track t ON t.id = s.track_id ORDER BY s.ts;
SELECT id, name, type, extract_arg(dimension_arg_set_id, 'track_compressor_idx') AS idx, extract_arg(source_arg_set_id, 'trace_id') AS trace_id FROM track WHERE name = 'db' ORDER BY id;
