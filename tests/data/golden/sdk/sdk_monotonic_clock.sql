-- trace: sdk/cpp_legacy_monotonic.pb
-- A trace written by Perfetto's C++ SDK with TracingInitArgs.use_monotonic_clock and its legacy
-- (Chrome-style) macros (tests/data/sdk/README.md). Expected output: checked against Perfetto's
-- trace_processor_shell. The SDK's sequence clock (64, incremental) is snapshotted with
-- MONOTONIC only, which the service's snapshot relates to BOOTTIME: timestamps go through both
-- (fails if the events are dropped for want of a snapshot with the trace clock). A
-- source_location_iid 0 is a parser error, not an interned-data error.
SELECT count(*), min(ts), max(ts + dur), sum(dur) FROM slice;
SELECT s.ts, s.dur, s.depth, s.name, s.category, t.type FROM slice s JOIN track t ON t.id = s.track_id ORDER BY s.ts, s.id LIMIT 20;
SELECT f.slice_out, f.slice_in FROM flow f ORDER BY 1, 2;
SELECT name, value FROM stats WHERE value > 0 AND name IN ('clock_sync_failure', 'interned_data_tokenizer_errors', 'track_event_parser_errors') ORDER BY name;
