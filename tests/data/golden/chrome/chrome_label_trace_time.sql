-- Checked against Perfetto's trace_processor_shell.
SELECT p.pid, p.name, a.key, a.display_value FROM process p JOIN args a USING (arg_set_id) ORDER BY p.pid, a.key;
