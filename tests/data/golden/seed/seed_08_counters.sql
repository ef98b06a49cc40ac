-- trace: seed/08_counters.pbtxt
SELECT c.id, c.ts, c.value, t.name FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY c.id;
SELECT t.id, t.name, t.type, p.pid, p.name AS process FROM process_counter_track t
JOIN process p USING (upid);
