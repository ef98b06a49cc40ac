-- Vulkan API events, GPU log lines, GPU memory totals, and render stages named by Vulkan debug
-- names and a late specification. The same as trace_processor_shell v58.2.
SELECT g.name, g.type, g.description, s.ts, s.dur, s.name FROM gpu_track g JOIN slice s ON s.track_id = g.id ORDER BY s.ts;
SELECT s.ts, a.flat_key, a.key, a.value_type, a.display_value FROM slice s JOIN args a USING (arg_set_id) WHERE a.key NOT IN ('context_id', 'render_subpasses', 'submission_id', 'upid', 'hw_queue_id') OR s.name = 'vkQueueSubmit' ORDER BY s.ts, a.id;
SELECT c.ts, c.value, t.name, t.type, t.unit FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts;
SELECT t.name, t.type, a.key, a.display_value FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id WHERE t.type GLOB '*gpu_memory' ORDER BY t.id, a.id;
