-- intervals.overlap: how many intervals are open over time, and merging overlapping ones.
--   intervals_overlap_count!(segments, ts_column, dur_column) -> (ts, value)
--   intervals_overlap_count_by_group!(segments, ts, dur, group_column) -> (ts, value, group_name)
--   interval_merge_overlapping!(intervals, epsilon) -> (ts, dur)
--   interval_merge_overlapping_partitioned!(intervals, (partition columns)) -> (ts, dur, ...)
--   _intervals_overlap_in_table!(intervals) -> has_overlaps: 1 if any two intervals overlap
--   _intervals_merge_root_and_children!(roots, children) and
--   _intervals_merge_root_and_children_by_intersection!(roots, children, key) -> the input of
--   _intervals_flatten!(merged) -> (root_id, id, ts, dur): at each moment, the deepest interval
-- An interval with dur -1 (unfinished) opens in the counts and never closes.

INCLUDE PERFETTO MODULE std.metasql.unparenthesize;

CREATE PERFETTO MACRO intervals_overlap_count(
  segments TableOrSubquery, ts_column ColumnName, dur_column ColumnName
) RETURNS TableOrSubquery AS
(
  SELECT ts, sum(delta) OVER (ORDER BY ts ROWS UNBOUNDED PRECEDING) AS value
  FROM (
    SELECT ts, sum(delta) AS delta FROM (
      SELECT $ts_column AS ts, 1 AS delta FROM $segments
      UNION ALL
      SELECT $ts_column + $dur_column AS ts, -1 AS delta FROM $segments WHERE $dur_column != -1
    )
    GROUP BY ts
  )
  ORDER BY ts
);

CREATE PERFETTO MACRO intervals_overlap_count_by_group(
  segments TableOrSubquery, ts_column ColumnName, dur_column ColumnName, group_column ColumnName
) RETURNS TableOrSubquery AS
(
  SELECT ts,
    sum(delta) OVER (PARTITION BY group_name ORDER BY ts ROWS UNBOUNDED PRECEDING) AS value,
    group_name
  FROM (
    SELECT ts, group_name, sum(delta) AS delta FROM (
      SELECT $ts_column AS ts, 1 AS delta, $group_column AS group_name FROM $segments
      UNION ALL
      SELECT $ts_column + $dur_column AS ts, -1 AS delta, $group_column AS group_name
      FROM $segments WHERE $dur_column != -1
    )
    GROUP BY group_name, ts
  )
  ORDER BY ts, group_name
);

CREATE PERFETTO MACRO _intervals_overlap_in_table(intervals TableOrSubquery)
RETURNS Expr AS
(
  SELECT count(*) > 0 AS has_overlaps FROM (
    SELECT ts, ts + dur AS e, max(ts + dur) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING
      AND 1 PRECEDING) AS _before
    FROM $intervals WHERE dur >= 0
  ) WHERE _before > ts
);

CREATE PERFETTO MACRO interval_merge_overlapping(intervals TableOrSubquery, epsilon Expr)
RETURNS TableOrSubquery AS
(
  SELECT min(ts) AS ts, max(ts + dur) - min(ts) AS dur
  FROM (
    SELECT ts, dur, sum(_starts_group) OVER (ORDER BY ts, dur ROWS UNBOUNDED PRECEDING) AS _grp
    FROM (
      SELECT ts, dur,
        coalesce(ts > max(ts + dur) OVER (ORDER BY ts, dur ROWS BETWEEN UNBOUNDED PRECEDING
          AND 1 PRECEDING) + ($epsilon), 1) AS _starts_group
      FROM $intervals WHERE dur >= 0
    )
  )
  GROUP BY _grp
  ORDER BY ts
);

CREATE PERFETTO MACRO interval_merge_overlapping_partitioned(
  intervals TableOrSubquery, partition_columns ColumnNameList
) RETURNS TableOrSubquery AS
(
  SELECT min(ts) AS ts, max(ts + dur) - min(ts) AS dur,
    metasql_unparenthesize_exprlist!($partition_columns)
  FROM (
    SELECT *, sum(_starts_group) OVER (PARTITION BY
      metasql_unparenthesize_exprlist!($partition_columns) ORDER BY ts, dur
      ROWS UNBOUNDED PRECEDING) AS _grp
    FROM (
      SELECT ts, dur, metasql_unparenthesize_exprlist!($partition_columns),
        coalesce(ts > max(ts + dur) OVER (PARTITION BY
          metasql_unparenthesize_exprlist!($partition_columns) ORDER BY ts, dur
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 1) AS _starts_group
      FROM $intervals WHERE dur >= 0
    )
  )
  GROUP BY metasql_unparenthesize_exprlist!($partition_columns), _grp
  ORDER BY ts
);

-- Roots (id, ts, dur) and their children (root_id, id, parent_id, ts, dur) as one table of
-- (root_id, root_ts, root_dur, id, parent_id, ts, dur); a root without children is one row with
-- NULL child columns. Empty intervals are left out.
CREATE PERFETTO MACRO _intervals_merge_root_and_children(
  roots_table TableOrSubquery, children_table TableOrSubquery
) RETURNS TableOrSubquery AS
(
  WITH _r AS (SELECT id AS root_id, ts AS root_ts, dur AS root_dur FROM $roots_table WHERE dur > 0),
  _c AS (SELECT * FROM $children_table WHERE dur > 0)
  SELECT _r.root_id, _r.root_ts, _r.root_dur, _c.id, _c.parent_id, _c.ts, _c.dur
  FROM _c JOIN _r USING (root_id)
  UNION ALL
  SELECT root_id, root_ts, root_dur, NULL, NULL, NULL, NULL
  FROM _r WHERE root_id NOT IN (SELECT parent_id FROM _c WHERE parent_id IS NOT NULL)
);

-- As _intervals_merge_root_and_children!, but a child belongs to the roots it overlaps with the
-- same `key` (children have no root_id); a child without a parent gets that root as parent.
-- Gives (ts, dur, id, parent_id, root_id, root_ts, root_dur, key), the child cut to its root.
CREATE PERFETTO MACRO _intervals_merge_root_and_children_by_intersection(
  roots_table TableOrSubquery, children_table TableOrSubquery, key ColumnName
) RETURNS TableOrSubquery AS
(
  WITH _r AS (SELECT * FROM $roots_table WHERE dur > 0),
  _c AS (SELECT * FROM $children_table WHERE dur > 0)
  SELECT ii.ts, ii.dur, _c.id, coalesce(_c.parent_id, ii.id_1) AS parent_id, _r.id AS root_id,
    _r.ts AS root_ts, _r.dur AS root_dur, ii.$key
  FROM _interval_intersect!((_c, _r), ($key)) AS ii
  JOIN _c ON _c.id = ii.id_0
  JOIN _r ON _r.id = ii.id_1
);

-- Flattens each root's tree of intervals into pieces (root_id, id, ts, dur) that do not
-- overlap: at each moment the piece belongs to the deepest interval open then (its self time).
-- Children must lie inside their parents. At an instant where one interval ends and another
-- starts, the start wins. A root's pieces before its first and after its last child are given
-- even when empty (dur 0), as Perfetto gives them.
CREATE PERFETTO MACRO _intervals_flatten(children_with_roots_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH _cr AS (
    SELECT * FROM $children_with_roots_table WHERE root_dur > 0 AND (dur IS NULL OR dur > 0)
  ),
  _points AS (
    SELECT root_id, root_ts, root_dur, id, ts, 1 AS is_start FROM _cr
    UNION ALL
    SELECT root_id, root_ts, root_dur, coalesce(parent_id, root_id), ts + dur, 0 FROM _cr
    WHERE id IS NOT NULL
  ),
  _points_one AS (
    SELECT root_id, root_ts, root_dur, id, ts FROM (
      SELECT *, row_number() OVER (PARTITION BY root_id, ts ORDER BY is_start DESC) AS _rank
      FROM _points
    ) WHERE _rank = 1
  ),
  _middle AS (
    SELECT * FROM (
      SELECT root_id, root_ts, root_dur, id, ts,
        lead(ts) OVER (PARTITION BY root_id ORDER BY ts) - ts AS dur
      FROM _points_one
    ) WHERE dur > 0
  )
  SELECT root_id, id, ts, dur FROM _middle
  UNION ALL
  SELECT root_id, root_id, root_ts, min(ts) - root_ts FROM _middle GROUP BY root_id
  UNION ALL
  SELECT root_id, root_id, max(ts + dur), root_ts + root_dur - max(ts + dur) FROM _middle
  GROUP BY root_id
  UNION ALL
  SELECT root_id, root_id, root_ts, root_dur FROM _cr WHERE id IS NULL GROUP BY root_id
);
