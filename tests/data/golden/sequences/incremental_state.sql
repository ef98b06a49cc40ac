SELECT id, ts, name, category FROM slice ORDER BY id;
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
