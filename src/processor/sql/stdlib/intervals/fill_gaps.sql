-- intervals.fill_gaps: _intervals_fill_gaps!((group columns), (data columns), data) gives data's
-- (ts, dur, group columns, data columns) rows plus rows with NULL data columns for the time each
-- group has no row, so that every group covers trace_start() to trace_end() without a hole.
-- Pass (NULL) as group columns for no grouping; with no data at all, one row covers the whole
-- trace (group columns NULL). Rows within a group must not overlap. Ordered by ts.

INCLUDE PERFETTO MODULE std.metasql.unparenthesize;

CREATE PERFETTO MACRO __ifg_null(x Expr) RETURNS Expr AS NULL;

CREATE PERFETTO MACRO _intervals_fill_gaps(
  group_cols ColumnNameList, data_cols ColumnNameList, data TableOrSubquery
) RETURNS TableOrSubquery AS
(
  WITH _src AS (
    SELECT ts, dur, metasql_unparenthesize_exprlist!($group_cols),
      metasql_unparenthesize_exprlist!($data_cols)
    FROM $data
  ),
  _bounds AS (
    SELECT metasql_unparenthesize_exprlist!($group_cols), min(ts) AS _first,
      max(ts + dur) AS _last
    FROM _src GROUP BY metasql_unparenthesize_exprlist!($group_cols)
  ),
  _parts AS (
    SELECT ts, dur, metasql_unparenthesize_exprlist!($group_cols),
      metasql_unparenthesize_exprlist!($data_cols)
    FROM _src
    UNION ALL
    -- Before each group's first row.
    SELECT trace_start(), _first - trace_start(), metasql_unparenthesize_exprlist!($group_cols),
      __intrinsic_token_apply!(__ifg_null, $data_cols)
    FROM _bounds
    UNION ALL
    -- After each group's last row.
    SELECT _last, trace_end() - _last, metasql_unparenthesize_exprlist!($group_cols),
      __intrinsic_token_apply!(__ifg_null, $data_cols)
    FROM _bounds
    UNION ALL
    -- A group whose rows have no time (NULL ts) gets the whole trace.
    SELECT trace_start(), trace_dur(), metasql_unparenthesize_exprlist!($group_cols),
      __intrinsic_token_apply!(__ifg_null, $data_cols)
    FROM _bounds WHERE _first IS NULL AND _last IS NULL
    UNION ALL
    -- No data at all: one row for the whole trace.
    SELECT trace_start(), trace_dur(), __intrinsic_token_apply!(__ifg_null, $group_cols),
      __intrinsic_token_apply!(__ifg_null, $data_cols)
    WHERE NOT EXISTS (SELECT 1 FROM _src)
    UNION ALL
    -- Between a row's end and the group's next row.
    SELECT ts + dur,
      lead(ts) OVER (PARTITION BY metasql_unparenthesize_exprlist!($group_cols) ORDER BY ts)
        - (ts + dur),
      metasql_unparenthesize_exprlist!($group_cols),
      __intrinsic_token_apply!(__ifg_null, $data_cols)
    FROM _src
  )
  SELECT * FROM _parts WHERE coalesce(dur, 0) > 0 ORDER BY ts
);
