-- trace: chrome/chrome_args.pb
-- Chromium's typed payloads as args (Perfetto's reflection naming), histogram names, task
-- posted_from, proto_value annotations, one row per key, and the chrome process/thread
-- descriptors' names and args. Expected output: Perfetto's trace_processor_shell.
SELECT s.name, a.flat_key, a.key, a.value_type, a.display_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.ts, a.id;
SELECT pid, name FROM process ORDER BY pid;
SELECT p.pid, a.flat_key, a.key, a.value_type, a.display_value FROM process p JOIN args a USING (arg_set_id) ORDER BY p.pid, a.id;
SELECT tid, name FROM thread ORDER BY tid;
SELECT name, value FROM stats WHERE value > 0 AND name NOT LIKE '%_duration_ns' ORDER BY name;
