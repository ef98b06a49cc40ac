-- graphs.search: reachability in a directed graph given as a table of edges
-- (source_node_id, dest_node_id).
--   graph_reachable_dfs!(graph_table, start_nodes) -> (node_id, parent_node_id): the nodes a
--     depth-first search from each start node (start_nodes has node_id) reaches, in visiting
--     order, each with the node it was first reached from (NULL for a start node).
--   graph_reachable_bfs!(graph_table, start_nodes): the same breadth-first.
--   graph_next_sibling!(graph_table) -> (node_id, next_node_id): the next node with the same
--     node_parent_id by sort_key.
-- The searches run in C (__trak_graph), given the queries as text.

CREATE PERFETTO MACRO _graph_search(algorithm Expr, graph_table TableOrSubquery,
  start_nodes TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT c0 AS node_id, c1 AS parent_node_id
  FROM __trak_graph($algorithm,
    __intrinsic_stringify!(SELECT source_node_id, dest_node_id FROM $graph_table),
    __intrinsic_stringify!(SELECT node_id FROM $start_nodes))
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
