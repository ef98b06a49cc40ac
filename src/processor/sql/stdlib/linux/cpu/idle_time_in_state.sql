-- linux.cpu.idle_time_in_state: idle residency per CPU and state from the cumulative counters
-- of tracks of type 'cpu_idle_state' (dimensions 'cpu' and 'state'): between two samples of a
-- track, the residency gained and the share of the elapsed time it is, and a 'C0' row per CPU
-- and sample for the rest of the time (the CPU was active). Times are in microseconds. The
-- tracks come from SysStats.cpuidle_state (linux.sys_stats with cpuidle_period_ms).

INCLUDE PERFETTO MODULE time.conversion;

-- Per CPU, state and sample: the residency since the previous sample of the same track.
CREATE PERFETTO TABLE linux_per_cpu_idle_time_in_state_counters(
  -- Timestamp of the sample.
  ts TIMESTAMP,
  -- The machine of the CPU.
  machine_id JOINID(machine.id),
  -- The state's name ('C0': active).
  state STRING,
  -- The CPU.
  cpu LONG,
  -- The share of time_slice spent in the state, in percent (at most 100).
  idle_percentage DOUBLE,
  -- Residency gained since the previous sample, in microseconds.
  total_residency DOUBLE,
  -- Time since the previous sample, in microseconds.
  time_slice LONG
) AS
WITH samples AS (
  SELECT c.ts, c.value, c.track_id, t.machine_id,
    extract_arg(t.dimension_arg_set_id, 'state') AS state,
    extract_arg(t.dimension_arg_set_id, 'cpu') AS cpu
  FROM counter AS c
  JOIN track AS t ON t.id = c.track_id
  WHERE t.type = 'cpu_idle_state'
),
deltas AS (
  SELECT ts, machine_id, state, cpu, track_id,
    value - lag(value) OVER (PARTITION BY track_id ORDER BY ts) AS total_residency,
    time_to_us(ts - lag(ts) OVER (PARTITION BY track_id ORDER BY ts)) AS time_slice
  FROM samples
)
SELECT ts, machine_id, state, cpu,
  min(100, total_residency / time_slice * 100) AS idle_percentage, total_residency, time_slice
FROM deltas
WHERE time_slice IS NOT NULL
UNION ALL
SELECT ts, machine_id, 'C0' AS state, cpu,
  max(0, (time_slice - sum(total_residency)) / time_slice * 100) AS idle_percentage,
  max(0, time_slice - sum(total_residency)) AS total_residency, time_slice
FROM deltas
WHERE time_slice IS NOT NULL
GROUP BY ts, cpu, machine_id;

-- Per state and sample, over all CPUs of a machine.
CREATE PERFETTO TABLE linux_cpu_idle_time_in_state_counters(
  -- Timestamp of the sample.
  ts TIMESTAMP,
  -- The machine.
  machine_id JOINID(machine.id),
  -- The state's name ('C0': active).
  state STRING,
  -- The share of all CPUs' time spent in the state, in percent (at most 100).
  idle_percentage DOUBLE,
  -- Residency gained by all CPUs since their previous samples, in microseconds.
  total_residency DOUBLE,
  -- Time of all CPUs since their previous samples, in microseconds.
  time_slice LONG
) AS
SELECT ts, machine_id, state,
  min(100, sum(total_residency) / sum(time_slice) * 100) AS idle_percentage,
  sum(total_residency) AS total_residency, sum(time_slice) AS time_slice
FROM linux_per_cpu_idle_time_in_state_counters
GROUP BY ts, state, machine_id;
