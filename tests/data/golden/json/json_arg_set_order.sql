-- trace: golden/json/json_arg_set_order.json
-- Checked against Perfetto's trace_processor_shell (v58.2): arg sets numbered as Perfetto makes
-- them (a slice's when it leaves its track's stack, a track's when it is made), for a JSON trace
-- whose events are out of timestamp order in the file.
SELECT id, name, arg_set_id FROM slice ORDER BY id;
SELECT id, dimension_arg_set_id FROM track ORDER BY id;
SELECT arg_set_id, key, int_value FROM args ORDER BY id;
