-- std.trees.table_conversion: a tree from any table with id and parent_id columns, and back to a
-- table whose rows come parents first, numbered by _tree_id, with _tree_parent_id the parent's
-- number. The work is in C (src/processor/sql/perfetto_sql/trees.c).

-- A tree made from the rows of `source_table`, keeping `columns` besides id and parent_id.
CREATE PERFETTO MACRO _tree_from_table(
  -- A table, view or subquery with id and parent_id columns.
  source_table TableOrSubquery,
  -- The other columns to keep, in parentheses.
  columns ColumnNameList)
-- The tree, for _tree_to_table!.
RETURNS Expr AS
(SELECT __trak_tree_query!($source_table, $columns));

-- The rows of a tree: _tree_id, _tree_parent_id, id, parent_id and `columns`.
CREATE PERFETTO MACRO _tree_to_table(
  -- A tree from _tree_from_table!.
  tree_ptr Expr,
  -- The columns kept when the tree was made, in parentheses.
  columns ColumnNameList)
RETURNS TableOrSubquery AS
__trak_tree_table!($tree_ptr, $columns);
