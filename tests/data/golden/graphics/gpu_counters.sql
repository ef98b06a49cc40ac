-- GpuCounterEvent (TracePacket 52): gpu_counter tracks (dimensions ugpu, gpu, name; source arg
-- description; unit from the spec's units), gpu_counter_group rows, the gpu rows the counters
-- name, backwards- and forwards-looking values and the stats of bad specs and untimed samples.
-- The same as trace_processor_shell v58.2.
SELECT c.ts, c.value, t.name, t.gpu_id, t.ugpu, t.description, t.unit FROM counter c JOIN gpu_counter_track t ON c.track_id = t.id ORDER BY t.id, c.ts;
SELECT g.group_id, g.name, g.description, t.name AS track FROM gpu_counter_group g JOIN track t ON g.track_id = t.id ORDER BY g.id;
SELECT t.id, t.name, t.type, a.key, a.display_value FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id, a.id;
SELECT t.id, a.key, a.display_value FROM track t JOIN args a ON a.arg_set_id = t.source_arg_set_id ORDER BY t.id, a.id;
SELECT id, gpu, machine_id FROM gpu ORDER BY id;
SELECT name, idx, severity, source, value FROM stats WHERE name LIKE 'gpu_counters%';
