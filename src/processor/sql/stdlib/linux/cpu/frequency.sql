-- linux.cpu.frequency: each CPU's frequency as intervals of constant value.
-- cpu_frequency_counters(id, track_id, ts, dur, freq, ucpu, cpu) reads the counters of the
-- cpu_counter_track rows named 'cpufreq' (ftrace's cpu_frequency event) through
-- counters.intervals: a value holds until the next change, the last until the trace's end.

INCLUDE PERFETTO MODULE counters.intervals;

-- Each CPU's frequency as intervals where it is constant.
CREATE PERFETTO TABLE cpu_frequency_counters(
  -- The counter row that starts the interval.
  id LONG,
  -- Its cpu_counter_track.
  track_id JOINID(track.id),
  -- Start of the interval.
  ts TIMESTAMP,
  -- How long the frequency stays at this value.
  dur DURATION,
  -- The frequency in kHz.
  freq LONG,
  -- The CPU's unique id (cpu.ucpu).
  ucpu LONG,
  -- The CPU's number.
  cpu LONG
) AS
SELECT iv.id, iv.track_id, iv.ts, iv.dur, cast_int!(iv.value) AS freq, c.ucpu, t.cpu
FROM counter_leading_intervals!((
  SELECT ctr.* FROM counter AS ctr
  JOIN cpu_counter_track AS cct ON cct.id = ctr.track_id
  WHERE cct.name = 'cpufreq')) AS iv
JOIN cpu_counter_track AS t ON t.id = iv.track_id
JOIN cpu AS c ON c.cpu = t.cpu AND c.machine_id IS t.machine_id;
