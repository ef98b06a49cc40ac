SELECT s.ts, s.dur, s.name, t.name AS track FROM slice s JOIN track t ON s.track_id = t.id;
SELECT c.ts, c.value, t.name AS track FROM counter c JOIN counter_track t ON c.track_id = t.id;
