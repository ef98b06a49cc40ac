-- slices.with_context: slices joined with the thread or process they belong to.
-- thread_slice: slices on thread tracks; process_slice: slices on process tracks;
-- thread_or_process_slice: both (thread columns NULL for process slices).
--
-- Tracks, threads and processes are looked up by id, which the columnar tables answer by
-- position, and a track's slices through slice.track_id's index, so scanning every slice stays
-- linear.

CREATE PERFETTO VIEW thread_slice(
  id ID(slice.id), ts TIMESTAMP, dur DURATION, category STRING, name STRING,
  track_id JOINID(track.id), track_name STRING, thread_name STRING, utid JOINID(thread.id),
  tid LONG, is_main_thread BOOL, process_name STRING, upid JOINID(process.id), pid LONG,
  depth LONG, parent_id JOINID(slice.id), arg_set_id ARGSETID, thread_ts TIMESTAMP,
  thread_dur LONG
) AS
SELECT
  s.id, s.ts, s.dur, s.category, s.name, s.track_id,
  tt.name AS track_name,
  th.name AS thread_name,
  th.utid,
  th.tid,
  th.is_main_thread,
  pr.name AS process_name,
  th.upid,
  pr.pid,
  s.depth, s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur
-- The thread and its process come before the slices: SQLite keeps a LEFT JOIN's right table
-- after its left one, and written last the process lookup ran once per slice instead of once
-- per thread.
FROM thread_track AS tt
JOIN thread AS th ON th.utid = tt.utid
LEFT JOIN process AS pr ON pr.upid = th.upid
JOIN slice AS s ON s.track_id = tt.id;

CREATE PERFETTO VIEW process_slice(
  id ID(slice.id), ts TIMESTAMP, dur DURATION, category STRING, name STRING,
  track_id JOINID(track.id), track_name STRING, process_name STRING, upid JOINID(process.id),
  pid LONG, depth LONG, parent_id JOINID(slice.id), arg_set_id ARGSETID, thread_ts TIMESTAMP,
  thread_dur LONG
) AS
SELECT
  s.id, s.ts, s.dur, s.category, s.name, s.track_id,
  pt.name AS track_name,
  pr.name AS process_name,
  pr.upid,
  pr.pid,
  s.depth, s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur
FROM slice AS s
JOIN process_track AS pt ON pt.id = s.track_id
JOIN process AS pr ON pr.upid = pt.upid;

CREATE PERFETTO VIEW thread_or_process_slice(
  id JOINID(slice.id), ts TIMESTAMP, dur DURATION, category STRING, name STRING,
  track_id JOINID(track.id), track_name STRING, thread_name STRING, utid JOINID(thread.id),
  tid LONG, process_name STRING, upid JOINID(process.id), pid LONG, depth LONG,
  parent_id JOINID(slice.id), arg_set_id ARGSETID
) AS
SELECT id, ts, dur, category, name, track_id, track_name, thread_name, utid, tid,
  process_name, upid, pid, depth, parent_id, arg_set_id
FROM thread_slice
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
