-- graphs.dominator_tree: graph_dominator_tree!(graph_table, root_node_id) -> (node_id,
-- dominator_node_id): for every node reachable from the root in the graph of edges
-- (source_node_id, dest_node_id), its immediate dominator (NULL for the root). Computed in C.

CREATE PERFETTO MACRO graph_dominator_tree(graph_table TableOrSubquery, root_node_id Expr)
RETURNS TableOrSubquery AS
(
  SELECT c0 AS node_id, c1 AS dominator_node_id
  FROM __trak_graph('dominator',
    (SELECT __trak_rows(source_node_id, dest_node_id) FROM $graph_table),
    (SELECT __trak_rows($root_node_id)))
);
