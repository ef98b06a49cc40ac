-- trace: sdk/c_shlib.pb
-- A trace written by Perfetto's C SDK (libperfetto_c, in-process backend; tests/data/sdk/README.md).
-- Expected output: checked against Perfetto's trace_processor_shell. Counter values get the
-- event's args as slices do: a counter on a process track from a thread's sequence names the
-- thread in legacy_event.passthrough_utid (fails if counters get no args); a track merged by
-- sibling_merge_key has merge_key_type 2 and the key as merge_key_value (fails if merged by
-- name); the service's trace_provenance packet is known (no proto_unknown_field).
SELECT t.name, c.ts - (SELECT min(ts) FROM counter) AS rel_ts, c.value, a.key, a.value_type, a.display_value FROM counter c JOIN counter_track t ON t.id = c.track_id LEFT JOIN args a USING (arg_set_id) ORDER BY c.id, a.key;
SELECT t.name, t.type, a.key, a.display_value FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id WHERE t.name IN ('Worker', 'Render') AND a.key LIKE 'merge_key%' ORDER BY t.name, a.key;
SELECT name, value FROM stats WHERE value > 0 AND name IN ('proto_unknown_field', 'track_event_parser_errors', 'track_event_tokenizer_errors') ORDER BY name;
SELECT count(*), count(arg_set_id) FROM counter;
