-- linux.perf.counters: the perf profiler's samples with the counters read at each one
-- (Perfetto's module): a sample's counters are the values, at the sample's time, of the counter
-- tracks of its session and CPU (the timebase and its followers).

-- Every perf sample joined with its counters: one row per sample and counter.
CREATE PERFETTO VIEW linux_perf_sample_with_counters(
  -- The sample's id.
  sample_id JOINID(perf_sample.id),
  -- Its time.
  ts TIMESTAMP,
  -- The sampled thread.
  utid JOINID(thread.id),
  -- The CPU it ran on.
  cpu LONG,
  -- user, kernel, ... ('unknown' when not said).
  cpu_mode STRING,
  -- Its callstack, if unwound.
  callsite_id JOINID(stack_profile_callsite.id),
  -- Why unwinding stopped early, if it did.
  unwind_error STRING,
  -- The perf session (data source) it belongs to.
  perf_session_id JOINID(perf_session.id),
  -- The counter row.
  counter_id JOINID(counter.id),
  -- The counter's track (its name is the counter's: 'cpu-clock', 'instructions', ...).
  track_id JOINID(track.id),
  -- The counter's value at the sample.
  counter_value DOUBLE
) AS
SELECT ps.id AS sample_id, ps.ts, ps.utid, ps.cpu, ps.cpu_mode, ps.callsite_id, ps.unwind_error,
  ps.perf_session_id, c.id AS counter_id, c.track_id, c.value AS counter_value
FROM perf_sample AS ps
JOIN perf_counter_track AS pct
  ON pct.perf_session_id = ps.perf_session_id AND pct.cpu = IFNULL(ps.cpu, 0)
JOIN counter AS c ON c.track_id = pct.id AND c.ts = ps.ts;

-- The value of counter `counter_name` ('cpu-clock', 'instructions', ...) at perf sample
-- `sample_id`, or NULL.
CREATE PERFETTO FUNCTION linux_perf_counter_for_sample(
  -- The sample's id.
  sample_id JOINID(perf_sample.id),
  -- The counter's name.
  counter_name STRING
)
RETURNS DOUBLE AS
SELECT counter_value
FROM linux_perf_sample_with_counters AS s
JOIN track AS t ON t.id = s.track_id
WHERE s.sample_id = $sample_id AND t.name = $counter_name
LIMIT 1;
