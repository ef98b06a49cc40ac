-- Checked against Perfetto's trace_processor_shell (same CSV).
SELECT id, ts, dur, name, depth, parent_id FROM slice ORDER BY id;
