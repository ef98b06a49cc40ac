-- trace: golden/json/json_counter_first.json
-- A JSON trace that starts with a counter: its track is numbered after the thread tracks, as
-- Perfetto numbers it (oracle-checked).
SELECT id, name, type FROM track ORDER BY id;
SELECT id, ts, track_id, value FROM counter ORDER BY id;
