SELECT id, ts, dur, track_id, name, depth, parent_id FROM slice ORDER BY id;
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
SELECT id, name FROM slice WHERE ts >= 100 AND ts < 250;
SELECT id FROM slice WHERE id = 3;
