-- linux.cpu.utilization.thread_cpu: CPU cycles per thread and CPU, from the running time at
-- each frequency (millicycles = sum(dur * freq_kHz / 1000); megacycles = millicycles / 1e9).

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;

INCLUDE PERFETTO MODULE intervals.intersect;

-- CPU cycles and frequencies of each thread on each CPU (needs sched_switch and cpu_frequency).
CREATE PERFETTO TABLE cpu_cycles_per_thread_per_cpu(
  -- The thread.
  utid JOINID(thread.id),
  -- The CPU's unique id.
  ucpu JOINID(cpu.id),
  -- The CPU's number.
  cpu LONG,
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
  -- Average frequency in kHz, weighted by time.
  avg_freq LONG
) AS
SELECT f.utid, f.ucpu, c.cpu,
  _cpu_cycles_cols!(f.dur, f.freq),
  sum(f.dur) AS runtime,
  min(f.freq) AS min_freq,
  max(f.freq) AS max_freq,
  cast_int!(sum(f.dur * f.freq / 1000) / (sum(f.dur) / 1000)) AS avg_freq
FROM _cpu_freq_per_thread AS f
JOIN cpu AS c USING (ucpu)
GROUP BY f.utid, f.ucpu;

-- cpu_cycles_per_thread_per_cpu inside an interval (for a few intervals only).
CREATE PERFETTO FUNCTION cpu_cycles_per_thread_per_cpu_in_interval(
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur LONG)
RETURNS TABLE(
  -- The thread.
  utid JOINID(thread.id),
  -- The CPU's unique id.
  ucpu JOINID(cpu.id),
  -- The CPU's number.
  cpu LONG,
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
  -- Average frequency in kHz over the time it is known.
  avg_freq LONG
) AS
SELECT p.utid, p.ucpu, c.cpu,
  _cpu_cycles_cols!(p.dur, p.freq),
  sum(p.dur) AS runtime,
  _cpu_freq_cols!(p.dur, p.freq)
FROM _cpu_freq_per_thread_in_interval!($ts, $dur) AS p
JOIN cpu AS c ON c.ucpu = p.ucpu
GROUP BY p.utid, p.ucpu;
