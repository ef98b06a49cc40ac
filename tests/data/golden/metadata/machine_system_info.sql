-- The machine table from SystemInfo packets; checked against Perfetto's trace_processor_shell.
SELECT * FROM machine ORDER BY id;
