-- sched.thread_state_flattened: a thread slice's time split by the deepest slice open at each
-- moment (slices.flat_slices) and by the thread's scheduling state, row by row or summed per
-- state.

INCLUDE PERFETTO MODULE slices.flat_slices;

-- The flattened pieces of every thread's slices cut again where the thread's state changes.
CREATE VIRTUAL TABLE __span_joined_thread USING SPAN_JOIN(
  _slice_flattened PARTITIONED utid, thread_state PARTITIONED utid);

-- The pieces (flattened slice x thread state) within one slice's time on its track. The slice
-- is `slice_id` (NULL: any) of thread `utid` (NULL: any); when several match, the first
-- one's track and time are taken.
CREATE PERFETTO FUNCTION _get_flattened_thread_state(
  -- The slice, or NULL.
  slice_id JOINID(slice.id),
  -- Its thread, or NULL.
  utid JOINID(thread.id)
)
RETURNS TABLE(
  -- Start of the piece.
  ts TIMESTAMP,
  -- Its length.
  dur DURATION,
  -- The thread.
  utid JOINID(thread.id),
  -- Depth of the slice the piece belongs to.
  depth LONG,
  -- That slice's name.
  name STRING,
  -- That slice.
  slice_id JOINID(slice.id),
  -- Its track.
  track_id JOINID(track.id),
  -- The CPU the thread ran on (running pieces).
  cpu LONG,
  -- The thread's state.
  state STRING,
  -- Whether an uninterruptible sleep waited for I/O.
  io_wait LONG,
  -- The kernel function a blocked thread waited in.
  blocked_function STRING,
  -- The thread that woke it.
  waker_utid JOINID(thread.id),
  -- Whether it was woken from an interrupt.
  irq_context LONG
) AS
WITH target AS (
  SELECT s.ts, s.dur, s.track_id
  FROM slice AS s
  JOIN thread_track AS tt ON tt.id = s.track_id
  WHERE ($slice_id IS NULL OR s.id = $slice_id) AND ($utid IS NULL OR tt.utid = $utid)
)
SELECT ts, dur, utid, depth, name, slice_id, track_id, cpu, state, io_wait, blocked_function,
  waker_utid, irq_context
FROM __span_joined_thread
WHERE track_id = (SELECT track_id FROM target)
  AND ts >= (SELECT ts FROM target)
  AND ts < (SELECT ts + dur FROM target);

-- The same pieces summed per flattened slice: the time in each state, one column a state.
CREATE PERFETTO FUNCTION _get_flattened_thread_state_aggregated(
  -- The slice, or NULL.
  slice_id JOINID(slice.id),
  -- Its thread, or NULL.
  utid JOINID(thread.id)
)
RETURNS TABLE(
  -- The flattened slice.
  slice_id JOINID(slice.id),
  -- Its name.
  slice_name STRING,
  -- Time in uninterruptible sleep not waiting for I/O (D, io_wait 0).
  uninterruptible_sleep_nonio LONG,
  -- Time in uninterruptible sleep waiting for I/O (D, io_wait 1).
  uninterruptible_sleep_io LONG,
  -- Time runnable (R).
  runnable LONG,
  -- Time sleeping (S).
  sleeping LONG,
  -- Time stopped (T).
  stopped LONG,
  -- Time traced (t).
  traced LONG,
  -- Time dead (X).
  exit_dead LONG,
  -- Time a zombie (Z).
  exit_zombie LONG,
  -- Time in task dead (x).
  task_dead LONG,
  -- Time in wake kill (K).
  wake_kill LONG,
  -- Time waking (W).
  waking LONG,
  -- Time parked (P).
  parked LONG,
  -- Time in no load (N).
  no_load LONG,
  -- Time runnable after preemption (R+).
  runnable_preempted LONG,
  -- Time running.
  running LONG,
  -- Time idle (I).
  idle LONG,
  -- All the pieces' time.
  dur DURATION,
  -- The slice's depth.
  depth LONG
) AS
SELECT
  p.slice_id,
  p.name AS slice_name,
  sum(iif(p.state = 'D' AND p.io_wait = 0, p.dur, NULL)) AS uninterruptible_sleep_nonio,
  sum(iif(p.state = 'D' AND p.io_wait = 1, p.dur, NULL)) AS uninterruptible_sleep_io,
  sum(iif(p.state = 'R', p.dur, NULL)) AS runnable,
  sum(iif(p.state = 'S', p.dur, NULL)) AS sleeping,
  sum(iif(p.state = 'T', p.dur, NULL)) AS stopped,
  sum(iif(p.state = 't', p.dur, NULL)) AS traced,
  sum(iif(p.state = 'X', p.dur, NULL)) AS exit_dead,
  sum(iif(p.state = 'Z', p.dur, NULL)) AS exit_zombie,
  sum(iif(p.state = 'x', p.dur, NULL)) AS task_dead,
  sum(iif(p.state = 'K', p.dur, NULL)) AS wake_kill,
  sum(iif(p.state = 'W', p.dur, NULL)) AS waking,
  sum(iif(p.state = 'P', p.dur, NULL)) AS parked,
  sum(iif(p.state = 'N', p.dur, NULL)) AS no_load,
  sum(iif(p.state = 'R+', p.dur, NULL)) AS runnable_preempted,
  sum(iif(p.state = 'Running', p.dur, NULL)) AS running,
  sum(iif(p.state = 'I', p.dur, NULL)) AS idle,
  sum(p.dur) AS dur,
  p.depth
FROM _get_flattened_thread_state($slice_id, $utid) AS p
GROUP BY p.slice_id;
