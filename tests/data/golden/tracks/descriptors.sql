SELECT id, name, type, parent_id FROM track ORDER BY id;
SELECT utid, tid, name, upid, is_main_thread FROM thread ORDER BY utid;
SELECT upid, pid, name, cmdline FROM process ORDER BY upid;
SELECT COUNT(*) AS tracks FROM thread_track WHERE utid = 1;
SELECT id, upid FROM process_track ORDER BY id;
SELECT s.name, s.dur, t.name AS track FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.id;
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
