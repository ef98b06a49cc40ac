-- trace: seed/09_interning.pbtxt
SELECT id, ts, dur, name FROM slice ORDER BY id;
SELECT COUNT(*) AS problems FROM stats WHERE value > 0;
