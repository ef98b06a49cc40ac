-- prelude.compat_views: Perfetto's compatibility aliases, `slices` for the slice table and
-- `counters` for the counter table with each value's track name and unit.

-- The slice table under its older plural name: the same rows and columns.
CREATE PERFETTO VIEW slices(
  id JOINID(slice.id),
  ts TIMESTAMP,
  dur DURATION,
  track_id JOINID(track.id),
  category STRING,
  name STRING,
  depth LONG,
  parent_id JOINID(slice.id),
  arg_set_id ARGSETID,
  thread_ts TIMESTAMP,
  thread_dur DURATION,
  thread_instruction_count LONG,
  thread_instruction_delta LONG,
  cat STRING,
  slice_id JOINID(slice.id)
) AS
SELECT * FROM slice;

-- The counter table with the name and unit of each value's counter track, in time order.
CREATE PERFETTO VIEW counters(
  id ID,
  ts TIMESTAMP,
  track_id JOINID(track.id),
  value DOUBLE,
  arg_set_id LONG,
  -- The counter track's name (a legacy column).
  name STRING,
  -- The counter track's unit (a legacy column).
  unit STRING
) AS
SELECT c.id, c.ts, c.track_id, c.value, c.arg_set_id, ct.name, ct.unit
FROM counter AS c
JOIN counter_track AS ct ON ct.id = c.track_id
ORDER BY c.ts;
