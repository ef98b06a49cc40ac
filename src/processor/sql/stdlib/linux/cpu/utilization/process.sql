-- linux.cpu.utilization.process: CPU utilization and cycles per process: per period, per
-- second, over the trace and inside an interval.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;

INCLUDE PERFETTO MODULE linux.cpu.utilization.thread_cpu;

INCLUDE PERFETTO MODULE time.conversion;

INCLUDE PERFETTO MODULE intervals.intersect;

-- A process's utilization per period of `interval` ns (its threads that are not idle threads).
CREATE PERFETTO FUNCTION cpu_process_utilization_per_period(
  -- The period's length.
  interval LONG,
  -- The process.
  upid JOINID(process.id))
RETURNS TABLE(
  -- The period's start.
  ts TIMESTAMP,
  -- Running time over the period times the CPU count, in [0, 1].
  utilization DOUBLE,
  -- Running time over the period, in [0, CPU count].
  unnormalized_utilization DOUBLE
) AS
SELECT * FROM _cpu_avg_utilization_per_period!($interval, (
  SELECT s.ts, s.ts_end, s.utid
  FROM sched AS s
  JOIN thread AS th USING (utid)
  WHERE th.upid = $upid AND NOT th.is_idle));

-- A process's utilization per second.
CREATE PERFETTO FUNCTION cpu_process_utilization_per_second(
  -- The process.
  upid JOINID(process.id))
RETURNS TABLE(
  -- The second's start.
  ts TIMESTAMP,
  -- Running time over the second times the CPU count, in [0, 1].
  utilization DOUBLE,
  -- Running time over the second, in [0, CPU count].
  unnormalized_utilization DOUBLE
) AS
SELECT * FROM cpu_process_utilization_per_period(time_from_s(1), $upid);

-- CPU cycles and frequencies of each process.
CREATE PERFETTO TABLE cpu_cycles_per_process(
  -- The process.
  upid JOINID(process.id),
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
SELECT th.upid, _cpu_cycles_rollup_cols!()
FROM cpu_cycles_per_thread_per_cpu AS c
JOIN thread AS th USING (utid)
WHERE th.upid IS NOT NULL
GROUP BY th.upid;

-- cpu_cycles_per_process inside an interval, with the running time while the CPUs were awake
-- (for a few intervals only).
CREATE PERFETTO FUNCTION cpu_cycles_per_process_in_interval(
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur LONG)
RETURNS TABLE(
  -- The process.
  upid JOINID(process.id),
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
SELECT th.upid,
  _cpu_cycles_cols!(p.dur, p.freq),
  sum(p.dur) AS runtime,
  _cpu_awake_runtime_col!(p.ts, p.dur),
  _cpu_freq_cols!(p.dur, p.freq)
FROM _cpu_freq_per_thread_in_interval!($ts, $dur) AS p
JOIN thread AS th USING (utid)
GROUP BY th.upid;

-- Each process's share of an interval's awake time (for a few intervals only).
CREATE PERFETTO FUNCTION cpu_process_utilization_in_interval(
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur LONG)
RETURNS TABLE(
  -- The process.
  upid JOINID(process.id),
  -- The process's name.
  process_name STRING,
  -- The process's running time while awake.
  awake_dur LONG,
  -- awake_dur over the interval's awake time and the CPU count, in [0, 100].
  awake_utilization DOUBLE,
  -- awake_dur over the interval's awake time, in [0, 100 * CPU count].
  awake_unnormalized_utilization DOUBLE
) AS
SELECT c.upid, pr.name AS process_name, sum(c.awake_runtime) AS awake_dur,
  _cpu_awake_utilization_cols!(sum(c.awake_runtime), $ts, $dur, 6)
FROM cpu_cycles_per_process_in_interval($ts, $dur) AS c
JOIN process AS pr USING (upid)
GROUP BY c.upid;
