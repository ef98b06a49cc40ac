SELECT flat_key, length(key) AS key_len, substr(key, 1, 40) AS key_start, int_value, real_value,
  value_type FROM args WHERE key LIKE 'debug.%' ORDER BY id;
SELECT name, value FROM stats WHERE name IN ('arg_key_too_long', 'debug_annotation_too_deep',
  'json_nesting_too_deep', 'json_invalid_utf8') ORDER BY name;
