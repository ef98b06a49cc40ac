-- trace: seed/03_custom_tracks.pbtxt
SELECT id, name, type, parent_id FROM track ORDER BY id;
SELECT s.id, s.ts, s.dur, t.name AS track, s.depth FROM slice s JOIN track t ON s.track_id = t.id
ORDER BY s.id;
