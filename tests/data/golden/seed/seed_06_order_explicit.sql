-- trace: seed/06_order_explicit.pbtxt
SELECT name, extract_arg(source_arg_set_id, 'child_ordering') AS ordering FROM track
WHERE parent_id IS NULL;
SELECT name, extract_arg(source_arg_set_id, 'sibling_order_rank') AS rank FROM track
WHERE parent_id = 0 ORDER BY rank;
