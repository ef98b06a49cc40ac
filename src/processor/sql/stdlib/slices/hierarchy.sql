-- slices.hierarchy: a slice with its ancestors, or with its descendants, as table functions
-- with the columns of `slice` (the slice itself first, as Perfetto gives them), and
-- _slice_remove_nulls_and_reparent!(slices, column): the slices (id, parent_id, depth) whose
-- `column` is not NULL, each hung under its nearest ancestor whose `column` is not NULL.

CREATE PERFETTO FUNCTION _slice_ancestor_and_self(slice_id JOINID(slice.id))
RETURNS TABLE(
  id JOINID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id), category STRING,
  name STRING, depth LONG, parent_id JOINID(slice.id), arg_set_id ARGSETID,
  thread_ts TIMESTAMP, thread_dur LONG
) AS
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM slice WHERE id = $slice_id
UNION ALL
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM ancestor_slice($slice_id);

CREATE PERFETTO FUNCTION _slice_descendant_and_self(slice_id JOINID(slice.id))
RETURNS TABLE(
  id JOINID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id), category STRING,
  name STRING, depth LONG, parent_id JOINID(slice.id), arg_set_id ARGSETID,
  thread_ts TIMESTAMP, thread_dur LONG
) AS
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM slice WHERE id = $slice_id
UNION ALL
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM descendant_slice($slice_id);

-- A root keeps its row. Another slice's parent_id and depth are those of its deepest ancestor
-- with a value (Perfetto's depth there is that ancestor's depth, not one more); with none, the
-- ancestor SQLite picks for a max() of all zeros, as in Perfetto.
CREATE PERFETTO MACRO _slice_remove_nulls_and_reparent(
  slice_table TableOrSubquery, column_name ColumnName
) RETURNS TableOrSubquery AS
(
  WITH _kept AS (SELECT * FROM $slice_table WHERE $column_name IS NOT NULL)
  SELECT id, parent_id, depth, $column_name FROM _kept WHERE depth = 0
  UNION ALL
  SELECT k.id, a.id AS parent_id, max(iif(v.$column_name IS NULL, 0, a.depth)) AS depth,
    k.$column_name
  FROM _kept AS k, ancestor_slice(k.id) AS a
  LEFT JOIN _kept AS v ON v.id = a.id
  GROUP BY k.id
);
