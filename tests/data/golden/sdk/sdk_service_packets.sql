-- Expected output: checked against Perfetto's trace_processor_shell. Fails if trace_provenance or
-- for_testing count as unknown fields, or if the slice is dropped (its sequence's snapshot lacks
-- BOOTTIME); through MONOTONIC it begins at 520 - 400 + 1000 = 1120.
SELECT ts, dur, name FROM slice;
SELECT name, value FROM stats WHERE value > 0 AND name IN ('proto_unknown_field', 'clock_sync_failure', 'clock_sync_failure_unknown_source_clock') ORDER BY name;
