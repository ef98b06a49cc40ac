-- Checked against Perfetto's trace_processor_shell (v58.2): the same tracks, ids and lanes.
SELECT s.id, s.name, s.track_id FROM slice s ORDER BY s.id;
SELECT id, name, type, parent_id, extract_arg(dimension_arg_set_id, 'track_compressor_idx') AS idx
FROM track ORDER BY id;
