-- sched.thread_level_parallelism: how many threads were runnable, in uninterruptible sleep, or
-- running (active CPUs) over time. Each table is a step function: a row per change, its count
-- holding until the next row's ts. The counts are intervals_overlap_count!'s rows, computed in
-- C by __trak_overlap_count (overlap_count.c: SQLite sorted every start and end twice).

-- The number of runnable (R) threads over time.
CREATE PERFETTO TABLE sched_runnable_thread_count(
  -- When the count changed.
  ts TIMESTAMP,
  -- The number of runnable threads from ts to the next row.
  runnable_thread_count LONG
) AS
SELECT ts, value AS runnable_thread_count
FROM __trak_overlap_count((SELECT __trak_rows(ts, dur) FROM thread_state WHERE state = 'R'))
ORDER BY ts;

-- The number of threads in uninterruptible sleep (D) over time.
CREATE PERFETTO TABLE sched_uninterruptible_sleep_thread_count(
  -- When the count changed.
  ts TIMESTAMP,
  -- The number of threads in uninterruptible sleep from ts to the next row.
  uninterruptible_sleep_thread_count LONG
) AS
SELECT ts, value AS uninterruptible_sleep_thread_count
FROM __trak_overlap_count((SELECT __trak_rows(ts, dur) FROM thread_state WHERE state = 'D'))
ORDER BY ts;

-- The number of CPUs running a thread other than an idle (swapper) thread over time.
CREATE PERFETTO TABLE sched_active_cpu_count(
  -- When the count changed.
  ts TIMESTAMP,
  -- The number of busy CPUs from ts to the next row.
  active_cpu_count LONG
) AS
SELECT ts, value AS active_cpu_count
FROM __trak_overlap_count((
  SELECT __trak_rows(ts, dur) FROM sched
  WHERE utid NOT IN (SELECT utid FROM thread WHERE is_idle)))
ORDER BY ts;
