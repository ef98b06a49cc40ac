-- trace: seed/05_order_chronological.pbtxt
SELECT s.id, s.ts, s.dur, t.name AS track, s.name FROM slice s JOIN track t ON s.track_id = t.id
ORDER BY s.id;
SELECT id, name, parent_id, extract_arg(source_arg_set_id, 'child_ordering') AS ordering
FROM track ORDER BY id;
SELECT t.name, MIN(s.ts) AS first_ts FROM track t JOIN slice s ON s.track_id = t.id
WHERE t.parent_id = 0 GROUP BY t.id ORDER BY first_ts;
SELECT name, severity, value FROM stats WHERE value > 0 ORDER BY name;
