-- sched.time_in_state: time each thread spent in each scheduling state.
-- sched_time_in_state_for_thread: per thread and state, the time and its share of the thread's
-- total (integer percent, rounded down); sched_percentage_of_time_in_state: those shares as
-- one row per thread; and functions that answer the same for one interval of one thread or CPU.
-- As Perfetto, durations are summed as stored (an unfinished state's dur -1 counts as -1).

INCLUDE PERFETTO MODULE intervals.intersect;

-- The time a thread spent in each scheduling state over the trace.
CREATE PERFETTO TABLE sched_time_in_state_for_thread(
  -- The thread.
  utid JOINID(thread.id),
  -- The sum of the durations of all the thread's states.
  total_runtime LONG,
  -- The scheduling state.
  state STRING,
  -- The time spent in the state.
  time_in_state LONG,
  -- time_in_state as an integer percentage of total_runtime, rounded down.
  percentage_in_state LONG
) AS
WITH per_state AS (
  -- SELECT utid, state, sum(dur) AS time_in_state FROM thread_state GROUP BY utid, state,
  -- summed in C (thread_state_scans.c): SQLite sorted every row for it.
  SELECT utid, state, time_in_state FROM __trak_thread_state_time
),
per_thread AS (
  SELECT utid, sum(time_in_state) AS total_runtime FROM per_state GROUP BY utid
)
SELECT ps.utid, pt.total_runtime, ps.state, ps.time_in_state,
  ps.time_in_state * 100 / pt.total_runtime AS percentage_in_state
FROM per_state AS ps
JOIN per_thread AS pt USING (utid);

-- One row per thread: the integer percentage of its time in each group of states (the sum may
-- be under 100 as each is rounded down).
CREATE PERFETTO TABLE sched_percentage_of_time_in_state(
  -- The thread.
  utid JOINID(thread.id),
  -- Percentage of time Running.
  running LONG,
  -- Percentage of time runnable (R).
  runnable LONG,
  -- Percentage of time runnable after preemption (R+).
  runnable_preempted LONG,
  -- Percentage of time sleeping (S).
  sleeping LONG,
  -- Percentage of time in uninterruptible sleep (D).
  uninterruptible_sleep LONG,
  -- Percentage of time in T, t, X, Z, x, I, K, W, P or N.
  other LONG
) AS
SELECT utid,
  max(iif(state = 'Running', percentage_in_state, NULL)) AS running,
  max(iif(state = 'R', percentage_in_state, NULL)) AS runnable,
  max(iif(state = 'R+', percentage_in_state, NULL)) AS runnable_preempted,
  max(iif(state = 'S', percentage_in_state, NULL)) AS sleeping,
  max(iif(state = 'D', percentage_in_state, NULL)) AS uninterruptible_sleep,
  sum(iif(state IN ('T', 't', 'X', 'Z', 'x', 'I', 'K', 'W', 'P', 'N'), time_in_state, NULL))
    * 100 / total_runtime AS other
FROM sched_time_in_state_for_thread
GROUP BY utid;

-- The time one thread spent in each state, IO wait and blocked function inside an interval
-- (for a few intervals: each call scans the thread's states).
CREATE PERFETTO FUNCTION sched_time_in_state_for_thread_in_interval(
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur DURATION,
  -- The thread.
  utid JOINID(thread.id))
RETURNS TABLE(
  -- The scheduling state.
  state STRING,
  -- Whether a D state was an IO wait (NULL when unknown).
  io_wait BOOL,
  -- The kernel function a D state was blocked in, when known.
  blocked_function LONG,
  -- The time spent with this state, IO wait and function in the interval.
  dur DURATION
) AS
SELECT t.state, t.io_wait, t.blocked_function, sum(part.dur) AS dur
FROM _interval_intersect_single!($ts, $dur, (
  SELECT id, ts, dur FROM thread_state WHERE utid = $utid AND dur > 0)) AS part
JOIN thread_state AS t ON t.id = part.id
GROUP BY t.state, t.io_wait, t.blocked_function
ORDER BY dur DESC;

-- The time one thread spent in each state on each CPU inside an interval.
CREATE PERFETTO FUNCTION sched_time_in_state_and_cpu_for_thread_in_interval(
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur DURATION,
  -- The thread.
  utid JOINID(thread.id))
RETURNS TABLE(
  -- The scheduling state.
  state STRING,
  -- Whether a D state was an IO wait (NULL when unknown).
  io_wait BOOL,
  -- The CPU (Running states only; NULL otherwise).
  cpu LONG,
  -- The kernel function a D state was blocked in, when known.
  blocked_function LONG,
  -- The time spent with this state, CPU and function in the interval.
  dur DURATION
) AS
SELECT t.state, t.io_wait, t.cpu, t.blocked_function, sum(part.dur) AS dur
FROM _interval_intersect_single!($ts, $dur, (
  SELECT id, ts, dur FROM thread_state WHERE utid = $utid AND dur > 0)) AS part
JOIN thread_state AS t ON t.id = part.id
GROUP BY t.state, t.io_wait, t.cpu, t.blocked_function
ORDER BY dur DESC;

-- The time a CPU's sched slices spent before each end state inside an interval.
CREATE PERFETTO FUNCTION sched_time_in_state_for_cpu_in_interval(
  -- The CPU.
  cpu LONG,
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur LONG)
RETURNS TABLE(
  -- The end state of the slices (sched.end_state).
  end_state STRING,
  -- Their time inside the interval.
  dur LONG
) AS
SELECT s.end_state, sum(part.dur) AS dur
FROM _interval_intersect_single!($ts, $dur, (
  SELECT id, ts, dur FROM sched WHERE cpu = $cpu AND dur != -1)) AS part
JOIN sched AS s ON s.id = part.id
GROUP BY s.end_state;
