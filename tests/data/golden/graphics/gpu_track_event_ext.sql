-- TrackEvent's GPU extensions (GpuTrackEvent.gpu_api, gpu_correlation) reflected into the
-- event's args. The same as trace_processor_shell v58.2.
-- trace: graphics/gpu_track_event_ext.pb
SELECT s.ts, s.name, a.flat_key, a.key, a.value_type, a.display_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.ts, a.id;
