-- slices.time_in_state: why was this slice slow? For each thread slice, the time its thread
-- spent in each scheduling state (Running, R, R+, S, D with io_wait and blocked_function, ...)
-- while the slice was open. thread_slice_time_in_state(id, name, utid, thread_name, upid,
-- process_name, state, io_wait, blocked_function, dur): a row per slice and state.
--
-- The slices meet their thread's thread_state rows in C (slice_thread_time.c), straight from the
-- columns: the answer is _interval_intersect!'s over _thread_slice_intervals!() and thread_state
-- (dur > 0) by utid, summed per slice and state, as Perfetto computes it, without the
-- intersection's BLOBs and the joins of its pieces back to thread_slice. It is a view of the
-- C table, which computes the whole answer at its first scan and keeps it (Perfetto's is a
-- table: the rows and their order are the same; a table of SQLite's would copy 5 M rows at
-- 10 M sched events). The includes stay for what they give the includer, as in Perfetto.

INCLUDE PERFETTO MODULE intervals.intersect;

INCLUDE PERFETTO MODULE slices.with_context;

-- Each thread slice's time per scheduling state (needs scheduling data).
CREATE PERFETTO VIEW thread_slice_time_in_state(
  -- The slice.
  id JOINID(slice.id),
  -- The slice's name.
  name STRING,
  -- Its thread.
  utid JOINID(thread.id),
  -- The thread's name.
  thread_name STRING,
  -- Its process.
  upid JOINID(process.id),
  -- The process's name.
  process_name STRING,
  -- The scheduling state (sched.states names it).
  state STRING,
  -- For D: whether it was an IO wait (NULL when unknown or not D).
  io_wait BOOL,
  -- For D: the kernel function blocked in, when sched_blocked_reason was recorded.
  blocked_function STRING,
  -- The slice's time in this state, IO wait and function.
  dur DURATION
) AS
SELECT id, name, utid, thread_name, upid, process_name, state, io_wait, blocked_function, dur
FROM __trak_thread_slice_time_in_state;
