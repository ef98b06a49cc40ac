-- trace: golden/json/json_slice_context_order.json
-- Checked against Perfetto's trace_processor_shell (v58.2): thread_or_process_slice without
-- ORDER BY gives the thread slices grouped by track (thread tracks in id order, each track's
-- slices in id order), then the process slices in id order; joined to args, each slice's args
-- follow it. Global instants (on no thread or process track) are in neither.
INCLUDE PERFETTO MODULE slices.with_context;
SELECT id, track_id, name, utid, upid FROM thread_or_process_slice;
SELECT s.name, a.key, a.display_value FROM thread_or_process_slice s LEFT JOIN args a USING (arg_set_id);
