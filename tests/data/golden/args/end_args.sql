SELECT name, arg_set_id, extract_arg(arg_set_id, 'debug.in') AS i,
       extract_arg(arg_set_id, 'debug.out') AS o FROM slice ORDER BY id;
SELECT id, arg_set_id, key FROM args ORDER BY id;
