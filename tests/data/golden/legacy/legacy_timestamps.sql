SELECT ts, name FROM slice ORDER BY ts;
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
