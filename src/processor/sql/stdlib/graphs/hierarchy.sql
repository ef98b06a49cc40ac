-- graphs.hierarchy: _tree_reachable_ancestors_or_self!(tree, start_nodes) -> (id): the nodes
-- of a tree given as (id, parent_id) that are one of start_nodes (a table with id) or an
-- ancestor of one, each once.

INCLUDE PERFETTO MODULE graphs.search;

CREATE PERFETTO MACRO _tree_reachable_ancestors_or_self(tree TableOrSubquery,
  start_nodes TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT node_id AS id
  FROM graph_reachable_dfs!(
    (SELECT id AS source_node_id, parent_id AS dest_node_id FROM $tree),
    (SELECT id AS node_id FROM $start_nodes))
);
