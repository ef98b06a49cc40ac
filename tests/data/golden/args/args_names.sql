SELECT flat_key, key, real_value, value_type, display_value FROM args ORDER BY id;
