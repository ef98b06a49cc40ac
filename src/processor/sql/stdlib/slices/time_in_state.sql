-- slices.time_in_state: why was this slice slow? For each thread slice, the time its thread
-- spent in each scheduling state (Running, R, R+, S, D with io_wait and blocked_function, ...)
-- while the slice was open. thread_slice_time_in_state(id, name, utid, thread_name, upid,
-- process_name, state, io_wait, blocked_function, dur): a row per slice and state.

INCLUDE PERFETTO MODULE intervals.intersect;

INCLUDE PERFETTO MODULE slices.with_context;

-- Each thread slice's time per scheduling state (needs scheduling data).
CREATE PERFETTO TABLE thread_slice_time_in_state(
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
WITH pieces AS (
  SELECT ii.id_0 AS slice_id, ii.id_1 AS state_id, ii.dur
  FROM _thread_slice_intersect!(
    (SELECT id, ts, dur, utid FROM thread_state WHERE dur > 0)) AS ii
)
SELECT p.slice_id AS id, s.name, s.utid, s.thread_name, s.upid, s.process_name, st.state,
  st.io_wait, st.blocked_function, sum(p.dur) AS dur
FROM pieces AS p
JOIN thread_slice AS s ON s.id = p.slice_id
JOIN thread_state AS st ON st.id = p.state_id
GROUP BY p.slice_id, st.state, st.io_wait, st.blocked_function
ORDER BY p.slice_id;
