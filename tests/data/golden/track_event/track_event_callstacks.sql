-- TrackEvent callstacks into the stack profile tables; checked against Perfetto's
-- trace_processor_shell.
SELECT * FROM stack_profile_mapping ORDER BY id;
SELECT * FROM stack_profile_frame ORDER BY id;
SELECT * FROM stack_profile_callsite ORDER BY id;
SELECT * FROM stack_profile_symbol ORDER BY id;
SELECT c.id, s.name, c.track_id, c.callsite_id, c.end_callsite_id, c.weight
FROM __intrinsic_track_event_callstacks c JOIN slice s ON s.id = c.slice_id ORDER BY c.id;
SELECT name, value FROM stats WHERE value > 0 AND name IN ('interned_data_tokenizer_errors', 'track_event_parser_errors') ORDER BY name;
SELECT slice_out, slice_in FROM flow ORDER BY id;
SELECT ts, value FROM counter ORDER BY ts;
