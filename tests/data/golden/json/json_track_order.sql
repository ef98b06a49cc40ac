-- trace: golden/json/json_track_order.json
-- Track ids follow the order in which the parse phase (by timestamp, JSON ties as Perfetto's
-- sorter orders them) first uses each track, async lanes included; JSON counter tracks come
-- after all others, as Perfetto makes them when the import ends. Tracks have Perfetto's dimension
-- and source args (oracle-checked).
SELECT id, name, type FROM track ORDER BY id;
SELECT s.ts, s.name, s.track_id FROM slice s ORDER BY s.id;
SELECT c.ts, c.track_id, c.value FROM counter c ORDER BY c.id;
SELECT t.id, a.key, a.value_type, a.display_value FROM track t
  JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id, a.id;
SELECT t.id, a.key, a.value_type, a.display_value FROM track t
  JOIN args a ON a.arg_set_id = t.source_arg_set_id ORDER BY t.id, a.id;
