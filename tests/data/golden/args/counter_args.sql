-- Checked against Perfetto's trace_processor_shell (v58.2): the same ids and rows.
SELECT id, ts, value, arg_set_id FROM counter ORDER BY id;
SELECT id, name, arg_set_id FROM slice ORDER BY id;
SELECT arg_set_id, key, int_value, string_value FROM args ORDER BY id;
