-- slices.with_context: slices joined with the thread or process they belong to.
-- thread_slice: slices on thread tracks; process_slice: slices on process tracks;
-- thread_or_process_slice: both (thread columns NULL for process slices), the thread slices
-- first, grouped by track (thread tracks in id order, each one's slices in id order), then the
-- process slices in id order: the rows come in the order Perfetto's joins give them, which a
-- query without ORDER BY shows.
--
-- The slice table's hidden columns (__utid, __upid, __track_name, __thread_name, __tid,
-- __is_main_thread, __process_name, __pid) follow each slice's track to its thread and process
-- as the joins of Perfetto's views do, read by id on each row: the views are one scan of the
-- slices in id order, with no join for SQLite to run per row. `>= 0` rather than `IS NOT NULL`
-- (the same rows: ids are not negative): SQLite rechecks IS NOT NULL on every row itself.

-- All thread slices with data about thread, thread track and process.
CREATE PERFETTO VIEW thread_slice(
  -- The slice's id in the slice table.
  id ID(slice.id),
  -- When it begins.
  ts TIMESTAMP,
  -- How long it lasts (-1: it never ended).
  dur DURATION,
  -- Its category.
  category STRING,
  -- Its name.
  name STRING,
  -- The thread track it is on.
  track_id JOINID(track.id),
  -- That track's name.
  track_name STRING,
  -- The thread's name.
  thread_name STRING,
  -- The thread.
  utid JOINID(thread.id),
  -- Alias for `thread.tid`.
  tid LONG,
  -- Whether the thread is its process's main thread (NULL: not known).
  is_main_thread BOOL,
  -- The name of the thread's process.
  process_name STRING,
  -- The thread's process.
  upid JOINID(process.id),
  -- That process's pid.
  pid LONG,
  -- How many slices enclose it on its track.
  depth LONG,
  -- The slice directly enclosing it (NULL: none).
  parent_id JOINID(slice.id),
  -- Its args.
  arg_set_id ARGSETID,
  -- The thread's CPU time when it begins (NULL: not recorded).
  thread_ts TIMESTAMP,
  -- The thread's CPU time during it (NULL: not recorded).
  thread_dur LONG
) AS
SELECT
  id, ts, dur, category, name, track_id,
  __track_name AS track_name,
  __thread_name AS thread_name,
  __utid AS utid,
  __tid AS tid,
  __is_main_thread AS is_main_thread,
  __process_name AS process_name,
  __upid AS upid,
  __pid AS pid,
  depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM slice
WHERE __utid >= 0;

CREATE PERFETTO VIEW process_slice(
  id ID(slice.id), ts TIMESTAMP, dur DURATION, category STRING, name STRING,
  track_id JOINID(track.id), track_name STRING, process_name STRING, upid JOINID(process.id),
  pid LONG, depth LONG, parent_id JOINID(slice.id), arg_set_id ARGSETID, thread_ts TIMESTAMP,
  thread_dur LONG
) AS
SELECT
  id, ts, dur, category, name, track_id,
  __track_name AS track_name,
  __process_name AS process_name,
  __upid AS upid,
  __pid AS pid,
  depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM slice
WHERE __upid >= 0 AND __utid IS NULL;

CREATE PERFETTO VIEW thread_or_process_slice(
  id JOINID(slice.id), ts TIMESTAMP, dur DURATION, category STRING, name STRING,
  track_id JOINID(track.id), track_name STRING, thread_name STRING, utid JOINID(thread.id),
  tid LONG, process_name STRING, upid JOINID(process.id), pid LONG, depth LONG,
  parent_id JOINID(slice.id), arg_set_id ARGSETID
) AS
SELECT * FROM (
  SELECT id, ts, dur, category, name, track_id, track_name, thread_name, utid, tid,
    process_name, upid, pid, depth, parent_id, arg_set_id
  FROM thread_slice
  ORDER BY track_id, id)
UNION ALL
SELECT id, ts, dur, category, name, track_id, track_name, NULL, NULL, NULL,
  process_name, upid, pid, depth, parent_id, arg_set_id
FROM process_slice;

-- The thread slices that can be intersected with their thread's intervals: (id, ts, dur, utid)
-- of those with a thread (utid > 0) and a positive duration.
CREATE PERFETTO MACRO _thread_slice_intervals()
RETURNS TableOrSubquery AS
(SELECT id, ts, dur, utid FROM thread_slice WHERE utid > 0 AND dur > 0);

-- The pieces where the thread slices overlap the intervals (id, ts, dur, utid) of `intervals`
-- of the same thread: _interval_intersect!'s rows (id_0 the slice, id_1 the interval's id);
-- the including module needs intervals.intersect.
CREATE PERFETTO MACRO _thread_slice_intersect(intervals TableOrSubquery)
RETURNS TableOrSubquery AS
(SELECT * FROM _interval_intersect!((_thread_slice_intervals!(), $intervals), (utid)));
