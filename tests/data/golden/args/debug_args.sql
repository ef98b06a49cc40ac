SELECT id, arg_set_id, flat_key, key, int_value, string_value, real_value, value_type,
       display_value FROM args ORDER BY id;
SELECT name, arg_set_id, extract_arg(arg_set_id, 'debug.s') AS s,
       extract_arg(arg_set_id, 'debug.arr[1].k') AS k, extract_arg(arg_set_id, 'debug.d') AS d,
       extract_arg(arg_set_id, 'debug.x') AS x FROM slice ORDER BY id;
SELECT s.name, a.key FROM slice s JOIN args a USING (arg_set_id) WHERE a.flat_key = 'debug.legacy.ys';
