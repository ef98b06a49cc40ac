-- trace: golden/json/json_counter_args.json
-- Checked against Perfetto's trace_processor_shell (v58.2): a JSON counter value's arg set names
-- its event's thread (utid, uint), made with the counter row; the counter tracks come last.
SELECT id, ts, value, arg_set_id FROM counter ORDER BY id;
SELECT id, dimension_arg_set_id FROM track ORDER BY id;
SELECT arg_set_id, key, value_type, int_value, string_value FROM args ORDER BY id;
