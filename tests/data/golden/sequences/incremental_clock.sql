SELECT ts, name FROM slice ORDER BY ts;
SELECT COUNT(*) AS problems FROM stats WHERE value > 0;
