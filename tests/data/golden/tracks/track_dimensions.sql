SELECT id, name, type, parent_id FROM track ORDER BY id;
SELECT t.id, a.key, a.value_type, a.display_value FROM track t
  JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id, a.id;
SELECT t.id, a.key, a.value_type, a.display_value FROM track t
  JOIN args a ON a.arg_set_id = t.source_arg_set_id ORDER BY t.id, a.id;
