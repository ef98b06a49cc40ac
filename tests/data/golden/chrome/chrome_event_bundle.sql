-- Checked against Perfetto's trace_processor_shell.
SELECT name, key_type, str_value, int_value FROM metadata WHERE name LIKE 'cr-%' ORDER BY id;
SELECT name, severity, source, value FROM stats WHERE name = 'empty_chrome_metadata';
SELECT count(*) FROM slice;
