SELECT s.id, s.ts, s.dur, s.name, s.category, s.depth, s.parent_id, t.name AS track, t.type
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.id;
SELECT s.name, a.key, a.int_value, a.string_value, a.value_type FROM slice s
JOIN args a USING (arg_set_id) ORDER BY s.id, a.id;
SELECT so.name AS slice_out, si.name AS slice_in FROM flow f JOIN slice so ON so.id = f.slice_out
JOIN slice si ON si.id = f.slice_in ORDER BY f.id;
SELECT t.id, t.name, t.type, p.pid FROM process_track t JOIN process p USING (upid) ORDER BY t.id;
SELECT tt.id, th.tid FROM thread_track tt JOIN thread th USING (utid) ORDER BY tt.id;
SELECT c.ts, t.name, t.type, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY c.id;
SELECT utid, tid, name FROM thread ORDER BY utid;
SELECT upid, pid, name FROM process ORDER BY upid;
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
SELECT t.type, a.key, a.display_value FROM track t JOIN args a ON a.arg_set_id = t.source_arg_set_id
WHERE t.type IN ('legacy_chrome_global_instants', 'chrome_process_instant') ORDER BY t.id, a.id;
