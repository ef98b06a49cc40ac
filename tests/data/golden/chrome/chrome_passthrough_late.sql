-- Checked against Perfetto's trace_processor_shell.
SELECT s.ts, s.name, a.key, a.display_value, th.tid FROM slice s LEFT JOIN args a USING (arg_set_id) LEFT JOIN thread th ON a.key = 'legacy_event.passthrough_utid' AND th.utid = a.int_value ORDER BY s.ts, a.key;
SELECT utid, tid, name FROM thread ORDER BY utid;
