SELECT utid, tid, upid, name, is_main_thread, is_idle FROM thread ORDER BY utid;
SELECT upid, pid, name FROM process ORDER BY upid;
SELECT p.pid, a.key, a.display_value FROM process p JOIN args a USING (arg_set_id) ORDER BY 1;
SELECT s.name, t.utid, th.tid, th.name AS thread FROM slice s JOIN thread_track t ON s.track_id = t.id JOIN thread th USING (utid) ORDER BY s.ts;
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
