-- V4L2 and virtio-video events: slices with their tracks, args, the QBUF -> DQBUF flows, the
-- virtio-video tracks' dimensions. The same as trace_processor_shell v58.2.
SELECT s.ts, s.dur, s.name, s.category, t.name AS track, t.type FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts, s.id;
SELECT s.ts, a.key, a.value_type, a.int_value, a.string_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.ts, s.id, a.id;
SELECT o.ts AS out_ts, o.name AS out_name, i.ts AS in_ts, i.name AS in_name FROM flow f JOIN slice o ON f.slice_out = o.id JOIN slice i ON f.slice_in = i.id ORDER BY o.ts;
SELECT t.id, t.name, a.key, a.int_value FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id WHERE t.type GLOB 'virtio_video*' ORDER BY t.id, a.id;
