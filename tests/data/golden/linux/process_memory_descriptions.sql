-- Perfetto's descriptions of process_memory tracks (source args), and the process table's
-- columns in Perfetto's order (upid before id); trace_processor_shell v58.2's answers.
SELECT t.id, t.name, t.type, t.dimension_arg_set_id, t.source_arg_set_id, substr(extract_arg(t.source_arg_set_id, 'description'), 1, 60) AS description FROM track t ORDER BY t.id;
SELECT arg_set_id, key, string_value FROM args WHERE key = 'description' ORDER BY arg_set_id;
SELECT * FROM process ORDER BY upid;
