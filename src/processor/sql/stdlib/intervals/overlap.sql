-- intervals.overlap: how many intervals are open over time, and merging overlapping ones.
--   intervals_overlap_count!(segments, ts_column, dur_column) -> (ts, value)
--   intervals_overlap_count_by_group!(segments, ts, dur, group_column) -> (ts, value, group_name)
--   interval_merge_overlapping!(intervals, epsilon) -> (ts, dur)
--   interval_merge_overlapping_partitioned!(intervals, (partition columns)) -> (ts, dur, ...)
--   _intervals_overlap_in_table!(intervals) -> 1 if any two intervals overlap, else 0
-- Intervals with dur -1 (unfinished) are left out of the counts.

INCLUDE PERFETTO MODULE std.metasql.unparenthesize;

CREATE PERFETTO MACRO intervals_overlap_count(
  segments TableOrSubquery, ts_column ColumnName, dur_column ColumnName
) RETURNS TableOrSubquery AS
(
  SELECT ts, sum(delta) OVER (ORDER BY ts ROWS UNBOUNDED PRECEDING) AS value
  FROM (
    SELECT ts, sum(delta) AS delta FROM (
      SELECT $ts_column AS ts, 1 AS delta FROM $segments WHERE $dur_column != -1
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
      SELECT $ts_column AS ts, 1 AS delta, $group_column AS group_name
      FROM $segments WHERE $dur_column != -1
      UNION ALL
      SELECT $ts_column + $dur_column AS ts, -1 AS delta, $group_column AS group_name
      FROM $segments WHERE $dur_column != -1
    )
    GROUP BY group_name, ts
  )
  ORDER BY group_name, ts
);

CREATE PERFETTO MACRO _intervals_overlap_in_table(intervals TableOrSubquery)
RETURNS Expr AS
(
  SELECT count(*) > 0 FROM (
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
