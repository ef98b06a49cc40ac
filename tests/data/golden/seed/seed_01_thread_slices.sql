-- trace: seed/01_thread_slices.pbtxt
SELECT s.id, s.ts, s.dur, s.name, s.depth, s.parent_id, t.tid, t.name AS thread, p.pid,
       p.name AS process
FROM slice s JOIN thread_track tt ON s.track_id = tt.id JOIN thread t USING (utid)
JOIN process p USING (upid) ORDER BY s.id;
SELECT * FROM instant;
SELECT id, name, type, parent_id FROM track ORDER BY id;
