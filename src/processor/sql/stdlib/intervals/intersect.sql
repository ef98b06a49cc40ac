-- intervals.intersect: _interval_intersect!((t0, t1, ...), (partition columns)) is built in
-- (written in C, it needs to count its tables); this module adds the single-interval form:
-- _interval_intersect_single!(ts, dur, t) gives the parts (id, ts, dur) of t's intervals inside
-- [ts, ts + dur); _interval_intersect_with_col_names!(t1, id1, ts1, dur1, t2, id2, ts2, dur2,
-- (partition columns)) intersects two tables whose id/ts/dur columns have other names;
-- interval_self_intersect!(t) cuts t's (id, ts, dur) intervals at every start and end and gives
-- each piece with the intervals open over it (ts, dur, group_id, id, interval_ends_at_ts).

-- One aggregated column of an interval table, as Perfetto's intersection helpers project it:
-- the name of column `x` as a string, then the input row's column `y`. trak's
-- _interval_intersect! is written in C and needs no such projection; the macro is kept for
-- queries written against Perfetto's module.
CREATE PERFETTO MACRO _ii_df_agg(x ColumnName, y ColumnName)
RETURNS _ProjectionFragment AS __intrinsic_stringify!($x), input.$y;

CREATE PERFETTO MACRO _interval_intersect_single(ts Expr, dur Expr, t TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT id_0 AS id, ts, dur
  FROM _interval_intersect!(($t, (SELECT 0 AS id, $ts AS ts, $dur AS dur)), ())
);

CREATE PERFETTO MACRO _interval_rename_cols(
  tab TableOrSubquery, partition_columns ColumnNameList, id_col ColumnName, ts_col ColumnName,
  dur_col ColumnName
) RETURNS TableOrSubquery AS
(
  SELECT $id_col AS id, $ts_col AS ts, $dur_col AS dur
    __intrinsic_token_apply!(__ii_comma_col, $partition_columns)
  FROM $tab
);

CREATE PERFETTO MACRO __ii_comma_col(x ColumnName) RETURNS _ProjectionFragment AS , $x;

CREATE PERFETTO MACRO _interval_intersect_with_col_names(
  tab1 TableOrSubquery, id_col1 ColumnName, ts_col1 ColumnName, dur_col1 ColumnName,
  tab2 TableOrSubquery, id_col2 ColumnName, ts_col2 ColumnName, dur_col2 ColumnName,
  partition_columns ColumnNameList
) RETURNS TableOrSubquery AS
_interval_intersect!((
  _interval_rename_cols!($tab1, $partition_columns, $id_col1, $ts_col1, $dur_col1),
  _interval_rename_cols!($tab2, $partition_columns, $id_col2, $ts_col2, $dur_col2)
), $partition_columns);

-- The pieces are numbered (group_id) from 1 in time order. A piece where an interval ends is
-- also given once per interval ending at its start, with interval_ends_at_ts 1 (the last one,
-- after every end, has dur 0).
CREATE PERFETTO MACRO interval_self_intersect(intervals TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH _ends AS (
    SELECT id, ts, 1 AS is_start FROM $intervals
    UNION
    SELECT id, ts + dur, 0 FROM $intervals
  ),
  _pieces AS (
    SELECT row_number() OVER (ORDER BY ts) AS id, ts,
      coalesce(lead(ts) OVER (ORDER BY ts) - ts, 0) AS dur
    FROM (SELECT DISTINCT ts FROM _ends)
  )
  SELECT ii.ts, ii.dur, ii.id_0 AS group_id, ii.id_1 AS id, 0 AS interval_ends_at_ts
  FROM _interval_intersect!((_pieces, $intervals), ()) AS ii
  WHERE ii.dur > 0
  UNION ALL
  SELECT e.ts, p.dur, p.id, e.id, 1
  FROM _ends AS e JOIN _pieces AS p ON p.ts = e.ts
  WHERE e.is_start = 0
);
