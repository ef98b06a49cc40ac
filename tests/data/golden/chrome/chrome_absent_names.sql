-- Checked against Perfetto's trace_processor_shell.
SELECT s.name, a.key, a.value_type, a.display_value IS NULL AS is_null, a.display_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.ts, a.key;
