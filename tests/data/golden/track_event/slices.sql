SELECT s.id, s.ts, s.dur, s.name, s.depth, s.parent_id, t.type FROM slice s
JOIN track t ON s.track_id = t.id ORDER BY s.id;
SELECT t.tid, t.name, p.pid FROM thread_track tt JOIN thread t USING (utid) JOIN process p USING (upid);
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
