-- linux.cpu.utilization.system: whole-system CPU utilization and cycles, akin to /proc/stat:
-- per period, per second, over the trace, per CPU, and inside an interval.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;

INCLUDE PERFETTO MODULE linux.cpu.utilization.thread_cpu;

INCLUDE PERFETTO MODULE time.conversion;

INCLUDE PERFETTO MODULE intervals.intersect;

-- The system's utilization per period of `interval` ns (all threads but the idle threads).
CREATE PERFETTO FUNCTION cpu_utilization_per_period(
  -- The period's length.
  interval LONG)
RETURNS TABLE(
  -- The period's start.
  ts TIMESTAMP,
  -- Running time over the period times the CPU count, in [0, 1].
  utilization DOUBLE,
  -- Running time over the period, in [0, CPU count].
  unnormalized_utilization DOUBLE
) AS
SELECT * FROM _cpu_avg_utilization_per_period!($interval,
  (SELECT * FROM sched WHERE utid NOT IN (SELECT utid FROM thread WHERE is_idle)));

-- The system's utilization per second.
CREATE PERFETTO TABLE cpu_utilization_per_second(
  -- The second's start.
  ts TIMESTAMP,
  -- Running time over the second times the CPU count, in [0, 1].
  utilization DOUBLE,
  -- Running time over the second, in [0, CPU count].
  unnormalized_utilization DOUBLE
) AS
SELECT ts, utilization, unnormalized_utilization
FROM cpu_utilization_per_period(time_from_s(1));

-- CPU cycles and frequencies over the whole trace (one row).
CREATE PERFETTO TABLE cpu_cycles(
  -- CPU millicycles.
  millicycles LONG,
  -- CPU megacycles.
  megacycles LONG,
  -- Running time of all threads on all CPUs.
  runtime DURATION,
  -- Lowest frequency in kHz.
  min_freq LONG,
  -- Highest frequency in kHz.
  max_freq LONG,
  -- Average frequency in kHz.
  avg_freq LONG
) AS
SELECT _cpu_cycles_rollup_cols!()
FROM cpu_cycles_per_thread_per_cpu;

-- cpu_cycles inside an interval, with the running time while the CPUs were awake (one row;
-- for a few intervals only).
CREATE PERFETTO FUNCTION cpu_cycles_in_interval(
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur LONG)
RETURNS TABLE(
  -- CPU millicycles.
  millicycles LONG,
  -- CPU megacycles.
  megacycles LONG,
  -- Running time of all threads on all CPUs.
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
SELECT _cpu_cycles_cols!(p.dur, p.freq),
  sum(p.dur) AS runtime,
  _cpu_awake_runtime_col!(p.ts, p.dur),
  _cpu_freq_cols!(p.dur, p.freq)
FROM _cpu_freq_per_thread_in_interval!($ts, $dur) AS p;

-- The system's share of an interval's awake time (one row; for a few intervals only).
CREATE PERFETTO FUNCTION cpu_utilization_in_interval(
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur LONG)
RETURNS TABLE(
  -- Running time of all threads while awake.
  awake_dur LONG,
  -- awake_dur over the interval's awake time and the CPU count, in [0, 100].
  awake_utilization DOUBLE,
  -- awake_dur over the interval's awake time, in [0, 100 * CPU count].
  awake_unnormalized_utilization DOUBLE
) AS
SELECT awake_runtime AS awake_dur,
  _cpu_awake_utilization_cols!(awake_runtime, $ts, $dur, 2)
FROM cpu_cycles_in_interval($ts, $dur);

-- CPU cycles and frequencies of each CPU.
CREATE PERFETTO TABLE cpu_cycles_per_cpu(
  -- The CPU's unique id.
  ucpu JOINID(cpu.id),
  -- The CPU's number.
  cpu LONG,
  -- CPU millicycles.
  millicycles LONG,
  -- CPU megacycles.
  megacycles LONG,
  -- Running time on the CPU.
  runtime DURATION,
  -- Lowest frequency in kHz.
  min_freq LONG,
  -- Highest frequency in kHz.
  max_freq LONG,
  -- Average frequency in kHz.
  avg_freq LONG
) AS
SELECT ucpu, cpu, _cpu_cycles_rollup_cols!()
FROM cpu_cycles_per_thread_per_cpu
GROUP BY ucpu, cpu;

-- cpu_cycles_per_cpu inside an interval (for a few intervals only).
CREATE PERFETTO FUNCTION cpu_cycles_per_cpu_in_interval(
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur LONG)
RETURNS TABLE(
  -- The CPU's unique id.
  ucpu JOINID(cpu.id),
  -- The CPU's number.
  cpu LONG,
  -- CPU millicycles.
  millicycles LONG,
  -- CPU megacycles.
  megacycles LONG,
  -- Running time on the CPU.
  runtime DURATION,
  -- Lowest frequency in kHz.
  min_freq LONG,
  -- Highest frequency in kHz.
  max_freq LONG,
  -- Average frequency in kHz over the time it is known.
  avg_freq LONG
) AS
SELECT p.ucpu, p.cpu,
  _cpu_cycles_cols!(p.dur, p.freq),
  sum(p.dur) AS runtime,
  _cpu_freq_cols!(p.dur, p.freq)
FROM _cpu_freq_per_thread_in_interval!($ts, $dur) AS p
GROUP BY p.ucpu;
