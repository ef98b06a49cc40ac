-- sched.thread_level_parallelism: how many threads were runnable, in uninterruptible sleep, or
-- running (active CPUs) over time. Each table is a step function: a row per change, its count
-- holding until the next row's ts.

INCLUDE PERFETTO MODULE intervals.overlap;

-- The number of runnable (R) threads over time.
CREATE PERFETTO TABLE sched_runnable_thread_count(
  -- When the count changed.
  ts TIMESTAMP,
  -- The number of runnable threads from ts to the next row.
  runnable_thread_count LONG
) AS
SELECT ts, value AS runnable_thread_count
FROM intervals_overlap_count!((SELECT ts, dur FROM thread_state WHERE state = 'R'), ts, dur)
ORDER BY ts;

-- The number of threads in uninterruptible sleep (D) over time.
CREATE PERFETTO TABLE sched_uninterruptible_sleep_thread_count(
  -- When the count changed.
  ts TIMESTAMP,
  -- The number of threads in uninterruptible sleep from ts to the next row.
  uninterruptible_sleep_thread_count LONG
) AS
SELECT ts, value AS uninterruptible_sleep_thread_count
FROM intervals_overlap_count!((SELECT ts, dur FROM thread_state WHERE state = 'D'), ts, dur)
ORDER BY ts;

-- The number of CPUs running a thread other than an idle (swapper) thread over time.
CREATE PERFETTO TABLE sched_active_cpu_count(
  -- When the count changed.
  ts TIMESTAMP,
  -- The number of busy CPUs from ts to the next row.
  active_cpu_count LONG
) AS
SELECT ts, value AS active_cpu_count
FROM intervals_overlap_count!((
  SELECT ts, dur FROM sched WHERE utid NOT IN (SELECT utid FROM thread WHERE is_idle)),
  ts, dur)
ORDER BY ts;
