-- trace: seed/04_order_lexicographic.pbtxt
SELECT id, name, parent_id, extract_arg(source_arg_set_id, 'child_ordering') AS ordering
FROM track ORDER BY id;
SELECT name FROM track WHERE parent_id = 0 ORDER BY name;
