-- slices.flow: _slice_following_flow!(source_table) -> (root_node_id, node_id, parent_node_id):
-- for each slice of source_table (an id column) that starts a flow, the slices reachable by
-- following flows from it, as a depth-first tree (only flow edges; following_flow() also
-- descends into children).

INCLUDE PERFETTO MODULE graphs.search;

CREATE PERFETTO MACRO _slice_following_flow(source_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT * FROM graph_reachable_weight_bounded_dfs!(
    (SELECT slice_out AS source_node_id, slice_in AS dest_node_id, 0 AS edge_weight FROM flow),
    (SELECT slice_out AS root_node_id, 1 AS root_target_weight
     FROM flow JOIN (SELECT id FROM $source_table) AS source ON slice_out = source.id),
    1)
);
