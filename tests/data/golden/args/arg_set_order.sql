-- Checked against Perfetto's trace_processor_shell (v58.2): the same ids and rows.
SELECT id, name, arg_set_id FROM slice ORDER BY id;
SELECT id, dimension_arg_set_id, source_arg_set_id FROM track ORDER BY id;
SELECT arg_set_id, key, int_value FROM args ORDER BY id;
