-- linux.cpu.idle_stats: per CPU and idle state, how often the CPU entered it and for how long,
-- from the intervals of linux.cpu.idle (cpu_idle_counters). The active intervals (idle -1)
-- count in each CPU's total time but are not a state of their own.

INCLUDE PERFETTO MODULE linux.cpu.idle;

-- One row per CPU and idle state entered.
CREATE PERFETTO TABLE cpu_idle_stats(
  -- CPU core number.
  cpu LONG,
  -- The idle state (C-state), numbered from 1: the kernel's state + 1.
  state LONG,
  -- How many times the CPU entered the state.
  count LONG,
  -- Time spent in the state in total.
  dur DURATION,
  -- Average time per entry.
  avg_dur DURATION,
  -- The state's share of the CPU's time in all its intervals (active included), in percent.
  idle_percent DOUBLE
) AS
WITH per_cpu AS (
  SELECT cpu, sum(dur) AS all_dur FROM cpu_idle_counters GROUP BY cpu
),
per_state AS (
  SELECT cpu, idle, count(*) AS n, sum(dur) AS state_dur
  FROM cpu_idle_counters
  WHERE idle >= 0
  GROUP BY cpu, idle
)
SELECT s.cpu, s.idle + 1 AS state, s.n AS count, s.state_dur AS dur,
  s.state_dur / s.n AS avg_dur, s.state_dur * 100.0 / c.all_dur AS idle_percent
FROM per_state AS s
JOIN per_cpu AS c USING (cpu);
