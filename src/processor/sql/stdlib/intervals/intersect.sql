-- intervals.intersect: _interval_intersect!((t0, t1, ...), (partition columns)) is built in
-- (written in C, it needs to count its tables); this module adds the single-interval form:
-- _interval_intersect_single!(ts, dur, t) gives the parts (id, ts, dur) of t's intervals inside
-- [ts, ts + dur).

CREATE PERFETTO MACRO _interval_intersect_single(ts Expr, dur Expr, t TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT id_0 AS id, ts, dur
  FROM _interval_intersect!(($t, (SELECT 0 AS id, $ts AS ts, $dur AS dur)), ())
);
