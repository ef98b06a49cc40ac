-- callstacks.stack_profile: the callsites of stack_profile_callsite as a forest of functions,
-- one node per frame of a callsite and, where a frame is symbolized into several (inlined)
-- functions, one per function, and the macros the profile modules build trees with.
--   _callstack_spc_forest: id, parent_id, name (the symbol's, else the deobfuscated or the
--     frame's name, demangled, else 'unknown'), mapping_id, source_file, line_number,
--     column_number, inlined, callsite_id, is_leaf_function_in_callsite_frame.
--   _callstacks_for_callsites!(samples) -> id, parent_id, name, mapping_name, source_file,
--     line_number, self_count: the nodes on the stacks of the samples' callsite_id, each
--     counting the samples whose leaf it is.
--   _callstacks_for_callsites_weighted!(samples) -> the same with self_value, the sum of the
--     samples' value.
--   _callstacks_self_to_cumulative!(callstacks) -> id, cumulative_count: a node's self_count
--     plus its descendants'.
--   _callstacks_with_cumulative!(callstacks) -> the callstacks' columns and cumulative_count.
-- trak imports no JIT code maps (V8, ART's JIT), so frames are named from the symbols and the
-- frames alone.

INCLUDE PERFETTO MODULE graphs.hierarchy;
INCLUDE PERFETTO MODULE graphs.scan;

-- Per frame, the first and last of its symbols (a symbolized frame's functions, innermost first).
CREATE PERFETTO TABLE _callstack_spf_summary AS
SELECT f.id, f.symbol_set_id, MIN(s.id) AS min_symbol_id, MAX(s.id) AS max_symbol_id
FROM stack_profile_frame AS f
LEFT JOIN stack_profile_symbol AS s ON s.symbol_set_id = f.symbol_set_id
GROUP BY f.id
ORDER BY f.id;

-- One row per (callsite, symbol): the outermost symbol of a frame hangs from the parent
-- callsite's innermost one, the others from the next symbol of their own frame.
CREATE PERFETTO TABLE _callstack_spc_raw_forest AS
SELECT
  row_number() OVER (ORDER BY c.id, s.id) - 1 AS _auto_id,
  c.id AS callsite_id,
  s.id AS symbol_id,
  iif(s.id IS f.max_symbol_id, c.parent_id, c.id) AS parent_callsite_id,
  iif(s.id IS f.max_symbol_id, pf.min_symbol_id, s.id + 1) AS parent_symbol_id,
  f.id AS frame_id,
  s.id IS f.min_symbol_id AS is_leaf
FROM stack_profile_callsite AS c
JOIN _callstack_spf_summary AS f ON c.frame_id = f.id
LEFT JOIN stack_profile_symbol AS s USING (symbol_set_id)
LEFT JOIN stack_profile_callsite AS p ON c.parent_id = p.id
LEFT JOIN _callstack_spf_summary AS pf ON p.frame_id = pf.id
ORDER BY c.id, s.id;

CREATE PERFETTO INDEX _callstack_spc_raw_forest_callsite ON _callstack_spc_raw_forest(
  callsite_id
);

CREATE PERFETTO TABLE _callstack_spc_forest AS
SELECT
  c._auto_id AS id,
  p._auto_id AS parent_id,
  coalesce(
    demangle(coalesce(s.name, f.deobfuscated_name, f.name)),
    coalesce(s.name, f.deobfuscated_name, f.name, 'unknown')
  ) AS name,
  f.mapping AS mapping_id,
  s.source_file,
  s.line_number,
  0 AS column_number,
  s.inlined,
  c.callsite_id,
  c.is_leaf AS is_leaf_function_in_callsite_frame
FROM _callstack_spc_raw_forest AS c
JOIN stack_profile_frame AS f ON c.frame_id = f.id
LEFT JOIN stack_profile_symbol AS s ON c.symbol_id = s.id
LEFT JOIN _callstack_spc_raw_forest AS p
  ON p.callsite_id = c.parent_callsite_id AND p.symbol_id IS c.parent_symbol_id
ORDER BY c._auto_id;

CREATE PERFETTO INDEX _callstack_spc_index ON _callstack_spc_forest(callsite_id);

CREATE PERFETTO INDEX _callstack_spc_parent_index ON _callstack_spc_forest(parent_id);

CREATE PERFETTO MACRO _callstacks_for_stack_profile_samples(spc_samples TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT f.id, f.parent_id, f.callsite_id, f.name, m.name AS mapping_name, f.source_file,
    f.line_number, f.inlined, f.is_leaf_function_in_callsite_frame
  FROM _tree_reachable_ancestors_or_self!(
    _callstack_spc_forest,
    (SELECT f.id FROM $spc_samples s JOIN _callstack_spc_forest f USING (callsite_id)
     WHERE f.is_leaf_function_in_callsite_frame)
  ) AS g
  JOIN _callstack_spc_forest AS f USING (id)
  JOIN stack_profile_mapping AS m ON f.mapping_id = m.id
);

-- The nodes on the samples' stacks, each with `self` (an aggregate over the samples of each
-- callsite: count() or sum(value)) as column `col` where it is their leaf, 0 elsewhere.
CREATE PERFETTO MACRO _callstacks_with_self(samples TableOrSubquery, self Expr, col ColumnName)
RETURNS TableOrSubquery AS
(
  WITH metrics AS MATERIALIZED (
    SELECT callsite_id, $self AS self FROM $samples GROUP BY callsite_id
  )
  SELECT c.id, c.parent_id, c.name, c.mapping_name, c.source_file, c.line_number,
    iif(c.is_leaf_function_in_callsite_frame, coalesce(m.self, 0), 0) AS $col
  FROM _callstacks_for_stack_profile_samples!(metrics) AS c
  LEFT JOIN metrics AS m USING (callsite_id)
);

CREATE PERFETTO MACRO _callstacks_for_callsites(samples TableOrSubquery)
RETURNS TableOrSubquery AS _callstacks_with_self!($samples, count(), self_count);

CREATE PERFETTO MACRO _callstacks_for_callsites_weighted(samples TableOrSubquery)
RETURNS TableOrSubquery AS _callstacks_with_self!($samples, sum(value), self_value);

CREATE PERFETTO MACRO _callstacks_self_to_cumulative(callstacks TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT a.*
  FROM _graph_aggregating_scan!(
    (SELECT id AS source_node_id, parent_id AS dest_node_id FROM $callstacks
     WHERE parent_id IS NOT NULL),
    (SELECT id, self_count AS cumulative_count FROM $callstacks
     WHERE id NOT IN (SELECT parent_id FROM $callstacks WHERE parent_id IS NOT NULL)),
    (cumulative_count),
    (
      WITH agg AS (
        SELECT t.id, SUM(t.cumulative_count) AS child_count FROM $table t GROUP BY t.id
      )
      SELECT a.id, a.child_count + r.self_count AS cumulative_count
      FROM agg a JOIN $callstacks r USING (id)
    )
  ) AS a
);

CREATE PERFETTO MACRO _callstacks_with_cumulative(callstacks TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT r.*, a.cumulative_count
  FROM $callstacks AS r
  JOIN _callstacks_self_to_cumulative!($callstacks) AS a USING (id)
);
