-- graphs.partition: tree_structural_partition_by_group!(tree_table) -> (id, parent_id,
-- group_key): a forest given as (id, parent_id, group_key) split by group, each node's parent
-- becoming its nearest ancestor with the same group_key (NULL if none). Computed in C.

CREATE PERFETTO MACRO tree_structural_partition_by_group(tree_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT c0 AS id, c1 AS parent_id, c2 AS group_key
  FROM __trak_graph('partition',
    (SELECT __trak_rows(id, parent_id, group_key) FROM $tree_table))
);
