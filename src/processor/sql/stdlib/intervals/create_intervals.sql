-- intervals.create_intervals: _interval_create!(starts_table, ends_table) pairs each start
-- timestamp with the first end timestamp strictly after it, giving (ts, dur). Starts with no
-- later end give no interval.

CREATE PERFETTO MACRO _interval_create(starts_table TableOrSubquery, ends_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT ts, _end - ts AS dur FROM (
    SELECT s.ts, (SELECT min(e.ts) FROM $ends_table AS e WHERE e.ts > s.ts) AS _end
    FROM $starts_table AS s
  )
  WHERE _end IS NOT NULL
  ORDER BY ts
);
