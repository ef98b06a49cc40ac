SELECT s.ts, s.name, t.type, th.tid, th.name AS thread, p.name AS process
FROM slice s JOIN track t ON s.track_id = t.id
LEFT JOIN thread_track tt ON tt.id = s.track_id LEFT JOIN thread th ON th.utid = tt.utid
LEFT JOIN process_track pt ON pt.id = s.track_id LEFT JOIN process p ON p.upid = pt.upid
ORDER BY s.ts;
SELECT utid, tid, name, upid FROM thread ORDER BY utid;
SELECT upid, pid, name FROM process ORDER BY upid;
