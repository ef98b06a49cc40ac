-- graphs.search: reachability in a directed graph given as a table of edges
-- (source_node_id, dest_node_id).
--   graph_reachable_dfs!(graph_table, start_nodes) -> (node_id, parent_node_id): the nodes a
--     depth-first search from each start node (start_nodes has node_id) reaches, in visiting
--     order, each with the node it was first reached from (NULL for a start node).
--   graph_reachable_bfs!(graph_table, start_nodes): the same breadth-first.
--   graph_next_sibling!(graph_table) -> (node_id, next_node_id): the next node with the same
--     node_parent_id by sort_key.
--   graph_reachable_weight_bounded_dfs!(graph_table, root_table, is_target_weight_floor) ->
--     (root_node_id, node_id, parent_node_id): a depth-first search from each root of root_table
--     (root_node_id, root_target_weight) on its own over edges with an edge_weight, stopping
--     when the weights taken pass the root's target; the node passing it is kept when
--     is_target_weight_floor is true.
-- The searches run in C (__trak_graph), given the tables packed by __trak_rows.

CREATE PERFETTO MACRO _graph_search(algorithm Expr, graph_table TableOrSubquery,
  start_nodes TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT c0 AS node_id, c1 AS parent_node_id
  FROM __trak_graph($algorithm,
    (SELECT __trak_rows(source_node_id, dest_node_id) FROM $graph_table),
    (SELECT __trak_rows(node_id) FROM $start_nodes))
);

CREATE PERFETTO MACRO graph_reachable_dfs(graph_table TableOrSubquery, start_nodes TableOrSubquery)
RETURNS TableOrSubquery AS _graph_search!('dfs', $graph_table, $start_nodes);

CREATE PERFETTO MACRO graph_reachable_bfs(graph_table TableOrSubquery, start_nodes TableOrSubquery)
RETURNS TableOrSubquery AS _graph_search!('bfs', $graph_table, $start_nodes);

CREATE PERFETTO MACRO graph_next_sibling(graph_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT node_id, lead(node_id) OVER (PARTITION BY node_parent_id ORDER BY sort_key) AS next_node_id
  FROM $graph_table
);

CREATE PERFETTO MACRO graph_reachable_weight_bounded_dfs(
  graph_table TableOrSubquery, root_table TableOrSubquery, is_target_weight_floor Expr
) RETURNS TableOrSubquery AS
(
  SELECT c0 AS root_node_id, c1 AS node_id, c2 AS parent_node_id
  FROM __trak_graph(IIF($is_target_weight_floor, 'weight_floor', 'weight_ceiling'),
    (SELECT __trak_rows(source_node_id, dest_node_id, edge_weight) FROM $graph_table),
    (SELECT __trak_rows(root_node_id, root_target_weight) FROM $root_table))
);
