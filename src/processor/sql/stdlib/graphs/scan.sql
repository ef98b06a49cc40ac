-- graphs.scan: scans over a directed graph given as a table of edges (source_node_id,
-- dest_node_id), from initial nodes that carry values (a table of id and the columns named).
--   _graph_scan!(graph_table, init_table, (columns), step_query) -> (id, columns...): the
--     initial rows, then, step after step, the rows step_query makes from the table `$table`
--     of the last step's rows passed down every edge (id: the edge's destination), until a step
--     has no rows. A cycle that keeps giving rows stops with an error.
--   _graph_aggregating_scan!(graph_table, init_table, (columns), agg_query): the initial rows,
--     then the rows agg_query makes from `$table`, the values passed down to each node by its
--     predecessors, node by node once all of them have theirs (deepest nodes first): a node's
--     row is an aggregate of its predecessors'. agg_query's columns must be id and the named
--     columns in that order.
-- Both run in C (__trak_graph_scan): the step query is run once per step (per depth).

CREATE PERFETTO MACRO _graph_scan_select(x ColumnName, y ColumnName)
RETURNS _ProjectionFragment AS $x AS $y;

CREATE PERFETTO MACRO _graph_scan_run(mode Expr, graph_table TableOrSubquery,
  init_table TableOrSubquery, columns ColumnNameList, step_query TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT c0 AS id,
    __intrinsic_token_apply!(_graph_scan_select, (c1, c2, c3, c4, c5, c6, c7), $columns)
  FROM __trak_graph_scan($mode,
    (SELECT __trak_rows(source_node_id, dest_node_id) FROM $graph_table),
    (SELECT __trak_rows(id, metasql_unparenthesize_exprlist!($columns)) FROM $init_table),
    __trak_quote!($step_query),
    __trak_quote!($columns))
);

CREATE PERFETTO MACRO _graph_scan(graph_table TableOrSubquery, init_table TableOrSubquery,
  scan_columns ColumnNameList, step_query TableOrSubquery)
RETURNS TableOrSubquery AS
_graph_scan_run!('scan', $graph_table, $init_table, $scan_columns, $step_query);

CREATE PERFETTO MACRO _graph_aggregating_scan(graph_table TableOrSubquery,
  init_table TableOrSubquery, agg_columns ColumnNameList, agg_query TableOrSubquery)
RETURNS TableOrSubquery AS
_graph_scan_run!('aggregating', $graph_table, $init_table, $agg_columns, $agg_query);
