SELECT c.id, c.ts, t.name, c.value FROM counter c JOIN track t ON c.track_id = t.id ORDER BY c.id;
SELECT id, name, type, unit FROM counter_track ORDER BY id;
SELECT t.name, th.tid, th.name AS thread FROM thread_counter_track t JOIN thread th USING (utid);
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
