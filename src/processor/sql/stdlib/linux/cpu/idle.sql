-- linux.cpu.idle: each CPU's idle state as intervals of constant value.
-- cpu_idle_counters(id, track_id, ts, dur, idle, cpu) reads the counters of the
-- cpu_counter_track rows named 'cpuidle' (ftrace's cpu_idle event). The kernel writes
-- 4294967295 (-1 as 32 bits) when a CPU leaves idle: it reads as -1, the active state; larger
-- values are deeper idle states.

INCLUDE PERFETTO MODULE counters.intervals;

-- Each CPU's idle state as intervals where it is constant.
CREATE PERFETTO TABLE cpu_idle_counters(
  -- The counter row that starts the interval.
  id LONG,
  -- Its cpu_counter_track.
  track_id JOINID(track.id),
  -- Start of the interval.
  ts TIMESTAMP,
  -- How long the CPU stays in this state.
  dur DURATION,
  -- The idle state: -1 active, 0 and up deeper and deeper idle states.
  idle LONG,
  -- The CPU's number.
  cpu LONG
) AS
SELECT iv.id, iv.track_id, iv.ts, iv.dur,
  cast_int!(iif(iv.value = 4294967295, -1, iv.value)) AS idle, t.cpu
FROM counter_leading_intervals!((
  SELECT ctr.* FROM counter AS ctr
  JOIN cpu_counter_track AS cct ON cct.id = ctr.track_id
  WHERE cct.name = 'cpuidle')) AS iv
JOIN cpu_counter_track AS t ON t.id = iv.track_id;
