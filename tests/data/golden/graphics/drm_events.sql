-- DRM events: slices on the vblank, scheduler ring and fence tracks and on threads, their args,
-- the flows from queueings to runs, the tracks' dimensions; GPU memory counters.
-- The same as trace_processor_shell v58.2.
SELECT s.ts, s.dur, s.name, t.name AS track, t.type, s.depth FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts, s.id;
SELECT s.ts, s.name, a.key, a.value_type, a.int_value, a.string_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.ts, s.id, a.id;
SELECT o.ts AS out_ts, o.name AS out_name, i.ts AS in_ts, i.name AS in_name, f.trace_id FROM flow f JOIN slice o ON f.slice_out = o.id JOIN slice i ON f.slice_in = i.id ORDER BY o.ts;
SELECT t.name, a.key, a.int_value, a.string_value FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id WHERE t.type GLOB 'drm_*' OR t.type GLOB '*gpu_memory' ORDER BY t.name, a.id;
SELECT c.ts, c.value, t.name, t.type, t.unit FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts;
