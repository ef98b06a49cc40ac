-- trace: chrome/startup_excerpt.pb
-- An excerpt of a real Chromium startup trace (tests/data/chrome/README.md): the args of its
-- slices (typed payloads, task posted_from, debug annotations) and its processes and threads.
-- Expected output: Perfetto's trace_processor_shell. Left out, where trak still differs:
-- chrome_mojo_event_info.mojo_interface_method_iid (Perfetto symbolizes it through the
-- stack_profile_mapping table, which trak lacks) and legacy_event.passthrough_utid.
SELECT a.flat_key, a.value_type, count(*), count(DISTINCT a.display_value) FROM slice s JOIN args a USING (arg_set_id) WHERE a.flat_key NOT LIKE 'chrome_mojo_event_info.mojo_interface_method%' AND a.key <> 'legacy_event.passthrough_utid' GROUP BY 1, 2 ORDER BY 1, 2;
SELECT s.ts, s.name, a.key, a.value_type, a.display_value FROM slice s JOIN args a USING (arg_set_id) WHERE a.flat_key NOT LIKE 'chrome_mojo_event_info.mojo_interface_method%' AND a.key <> 'legacy_event.passthrough_utid' AND a.flat_key NOT LIKE 'debug.%' ORDER BY s.ts, s.id, a.id LIMIT 120;
SELECT pid, name FROM process ORDER BY pid;
SELECT p.pid, a.key, a.display_value FROM process p JOIN args a USING (arg_set_id) ORDER BY p.pid, a.id;
SELECT tid, name, is_main_thread FROM thread ORDER BY tid;
