-- Expected output: checked against Perfetto's trace_processor_shell. Fails if the skipped
-- packets are not logged, lack their packet_sequence_id, or the severity is not "notice".
SELECT ts, name FROM slice ORDER BY ts;
SELECT name, severity, source, value FROM stats WHERE name = 'packet_skipped_seq_needs_incremental_state_invalid';
SELECT l.id, l.ts, l.byte_offset IS NOT NULL AS has_offset, l.severity, l.name, a.key, a.value_type, a.int_value FROM _trace_import_logs l LEFT JOIN args a USING (arg_set_id) ORDER BY l.id, a.key;
