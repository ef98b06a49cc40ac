-- GpuRenderStageEvent: gpu_render_stage tracks (gpu_track) and their slices (gpu_slice) with
-- Perfetto's args, and gpu_context. The same as trace_processor_shell v58.2.
SELECT g.id, g.name, g.type, g.description, s.ts, s.dur, s.name, s.depth, s.context_id, s.render_target, s.render_pass, s.command_buffer, s.submission_id, s.hw_queue_id, s.render_subpasses, s.render_stage_category FROM gpu_track g JOIN gpu_slice s ON s.track_id = g.id ORDER BY s.ts;
SELECT s.ts, a.key, a.value_type, a.display_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.ts, a.id;
SELECT t.id, a.key, a.display_value FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id, a.id;
SELECT upid, pid FROM process ORDER BY upid;
SELECT id, gpu FROM gpu ORDER BY id;
