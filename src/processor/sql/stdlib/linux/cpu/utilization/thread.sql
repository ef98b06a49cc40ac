-- linux.cpu.utilization.thread: CPU utilization and cycles per thread: per period, per second,
-- over the trace and inside an interval.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;

INCLUDE PERFETTO MODULE linux.cpu.utilization.thread_cpu;

INCLUDE PERFETTO MODULE time.conversion;

INCLUDE PERFETTO MODULE intervals.intersect;

-- A thread's utilization per period of `interval` ns (the first and last periods may read low:
-- they are only partly covered).
CREATE PERFETTO FUNCTION cpu_thread_utilization_per_period(
  -- The period's length.
  interval LONG,
  -- The thread.
  utid JOINID(thread.id))
RETURNS TABLE(
  -- The period's start.
  ts TIMESTAMP,
  -- Running time over the period times the CPU count, in [0, 1].
  utilization DOUBLE,
  -- Running time over the period, in [0, CPU count].
  unnormalized_utilization DOUBLE
) AS
SELECT * FROM _cpu_avg_utilization_per_period!($interval,
  (SELECT ts, ts_end, utid FROM sched WHERE utid = $utid));

-- A thread's utilization per second.
CREATE PERFETTO FUNCTION cpu_thread_utilization_per_second(
  -- The thread.
  utid JOINID(thread.id))
RETURNS TABLE(
  -- The second's start.
  ts TIMESTAMP,
  -- Running time over the second times the CPU count, in [0, 1].
  utilization DOUBLE,
  -- Running time over the second, in [0, CPU count].
  unnormalized_utilization DOUBLE
) AS
SELECT * FROM cpu_thread_utilization_per_period(time_from_s(1), $utid);

-- CPU cycles and frequencies of each thread over all CPUs.
CREATE PERFETTO TABLE cpu_cycles_per_thread(
  -- The thread.
  utid JOINID(thread.id),
  -- CPU millicycles.
  millicycles LONG,
  -- CPU megacycles.
  megacycles LONG,
  -- Running time.
  runtime DURATION,
  -- Lowest frequency in kHz.
  min_freq LONG,
  -- Highest frequency in kHz.
  max_freq LONG,
  -- Average frequency in kHz.
  avg_freq LONG
) AS
SELECT utid, _cpu_cycles_rollup_cols!()
FROM cpu_cycles_per_thread_per_cpu
GROUP BY utid;

-- cpu_cycles_per_thread inside an interval, with the running time while the CPUs were awake
-- (for a few intervals only).
CREATE PERFETTO FUNCTION cpu_cycles_per_thread_in_interval(
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur LONG)
RETURNS TABLE(
  -- The thread.
  utid JOINID(thread.id),
  -- CPU millicycles.
  millicycles LONG,
  -- CPU megacycles.
  megacycles LONG,
  -- Running time.
  runtime DURATION,
  -- Running time outside suspend (monotonic clock time).
  awake_runtime DURATION,
  -- Lowest frequency in kHz.
  min_freq LONG,
  -- Highest frequency in kHz.
  max_freq LONG,
  -- Average frequency in kHz over the time it is known.
  avg_freq LONG
) AS
SELECT p.utid,
  _cpu_cycles_cols!(p.dur, p.freq),
  sum(p.dur) AS runtime,
  _cpu_awake_runtime_col!(p.ts, p.dur),
  _cpu_freq_cols!(p.dur, p.freq)
FROM _cpu_freq_per_thread_in_interval!($ts, $dur) AS p
GROUP BY p.utid;

-- Each thread's share of an interval's awake time (for a few intervals only).
CREATE PERFETTO FUNCTION cpu_thread_utilization_in_interval(
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur LONG)
RETURNS TABLE(
  -- The thread's process.
  upid JOINID(process.id),
  -- The thread.
  utid JOINID(thread.id),
  -- The thread's name.
  thread_name STRING,
  -- The thread's running time while awake.
  awake_dur LONG,
  -- awake_dur over the interval's awake time and the CPU count, in [0, 100].
  awake_utilization DOUBLE,
  -- awake_dur over the interval's awake time, in [0, 100 * CPU count].
  awake_unnormalized_utilization DOUBLE
) AS
SELECT th.upid, c.utid, th.name AS thread_name, sum(c.awake_runtime) AS awake_dur,
  _cpu_awake_utilization_cols!(sum(c.awake_runtime), $ts, $dur, 6)
FROM cpu_cycles_per_thread_in_interval($ts, $dur) AS c
JOIN thread AS th USING (utid)
GROUP BY c.utid;
