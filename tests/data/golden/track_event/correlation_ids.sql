SELECT s.name, a.key, a.string_value, a.value_type FROM slice s LEFT JOIN args a USING (arg_set_id)
ORDER BY s.id, a.id;
SELECT name, extract_arg(arg_set_id, 'correlation_id') AS corr FROM slice ORDER BY id;
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
