-- GraphicsFrameEvent: frame_slice rows with their tracks and times, the args, the stats.
-- The same as trace_processor_shell v58.2.
SELECT f.ts, f.dur, t.name AS track, f.name, f.depth, f.frame_number, f.layer_name, f.queue_to_acquire_time, f.acquire_to_latch_time, f.latch_to_present_time FROM frame_slice f JOIN gpu_track t ON f.track_id = t.id ORDER BY f.ts, f.id;
SELECT name, value FROM stats WHERE name = 'graphics_frame_event_parser_errors';
