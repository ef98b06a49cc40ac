SELECT c.ts, t.name, c.value FROM counter c JOIN track t ON c.track_id = t.id ORDER BY c.ts;
SELECT name, unit FROM counter_track ORDER BY id;
