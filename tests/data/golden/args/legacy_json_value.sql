SELECT flat_key, key, int_value, string_value, real_value, value_type FROM args
WHERE key LIKE 'debug.%' ORDER BY id;
