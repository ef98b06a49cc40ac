-- trace: sdk/cpp_client.pb
-- A trace written by Perfetto's C++ SDK (client API, in-process backend, thread time sampling;
-- tests/data/sdk/README.md). Expected output: checked against Perfetto's trace_processor_shell.
-- An instant on perfetto::Track::Global(0) (an explicit track_uuid 0: the Default Track) has no
-- legacy_event.passthrough_utid (fails if it gets one); counters get it (fails if they have no
-- args); the thread_time counter tracks of extra_counter_track_uuids get
-- has_first_packet_on_sequence like other tracks (fails if the flag is missing).
SELECT s.name, t.name AS track, a.key, a.display_value FROM slice s JOIN track t ON t.id = s.track_id LEFT JOIN args a USING (arg_set_id) WHERE s.name IN ('GlobalInstant', 'OnParent', 'Event1') ORDER BY s.id, a.key;
SELECT t.name, count(*), count(c.arg_set_id), sum(a.key = 'legacy_event.passthrough_utid') FROM counter c JOIN counter_track t ON t.id = c.track_id LEFT JOIN args a USING (arg_set_id) WHERE t.name <> 'thread_time' GROUP BY t.name ORDER BY t.name;
SELECT t.type, t.name, a.key, a.display_value FROM track t JOIN args a ON a.arg_set_id = t.source_arg_set_id WHERE t.name = 'thread_time' AND a.key <> 'trace_id' ORDER BY t.id, a.key;
SELECT name, value FROM stats WHERE value > 0 AND name IN ('proto_unknown_field', 'track_event_parser_errors', 'track_event_tokenizer_errors') ORDER BY name;
