-- Checked against Perfetto's trace_processor_shell.
SELECT s.ts, s.name, a.key, a.display_value FROM slice s LEFT JOIN args a USING (arg_set_id) ORDER BY s.ts, a.key;
SELECT utid, tid, name FROM thread ORDER BY utid;
