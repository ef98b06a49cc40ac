-- linux.cpu.utilization.general: what the utilization modules share.
-- _partitions(size): the periods of `size` ns from the one holding the trace's start to the
-- one holding its end (as Perfetto, no more periods than the sched table has rows);
-- _cpu_avg_utilization_per_period!(interval, sched_table): per period, the running time of
-- the slices that start in it (cut at the period's end) over the period's length, divided by
-- the CPU count (utilization) or not (unnormalized_utilization); _cpu_freq_per_thread: the
-- sched slices of non-idle threads cut where their CPU's frequency changes, with the frequency.

INCLUDE PERFETTO MODULE linux.cpu.frequency;

-- The start of the period of length `size` that holds `ts`.
CREATE PERFETTO FUNCTION _partition_start(ts TIMESTAMP, size LONG)
RETURNS LONG AS
SELECT $ts / $size * $size;

-- The number of periods of length `size` from the trace's start to its end.
CREATE PERFETTO FUNCTION _partition_count(size LONG)
RETURNS LONG AS
SELECT (_partition_start(trace_end(), $size) - _partition_start(trace_start(), $size)) / $size
  + 1;

-- The periods of length `size` covering the trace (at most one per row of sched).
CREATE PERFETTO FUNCTION _partitions(size LONG)
RETURNS TABLE(ts TIMESTAMP, ts_end LONG) AS
WITH RECURSIVE
  bound(n) AS (SELECT min(_partition_count($size), (SELECT count(*) FROM sched))),
  k(i) AS (
    SELECT 0 FROM bound WHERE n > 0
    UNION ALL
    SELECT i + 1 FROM k, bound WHERE i + 1 < n
  )
SELECT _partition_start(trace_start(), $size) + i * $size AS ts,
  _partition_start(trace_start(), $size) + (i + 1) * $size AS ts_end
FROM k;

-- Each interval (ts, ts_end) of `intervals` placed in the partition (ts, ts_end) of
-- `partitions` where it starts, its end cut at the partition's end.
CREATE PERFETTO MACRO _interval_partitions(partitions TableOrSubquery,
  intervals TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT part.ts AS partition_ts,
    min(iv.ts_end, part.ts_end) AS ts_end,
    max(iv.ts, part.ts) AS ts
  FROM $intervals AS iv
  JOIN $partitions AS part ON iv.ts >= part.ts AND iv.ts < part.ts_end
);

-- Per period of length `interval`: (ts, utilization, unnormalized_utilization) of the slices of
-- `sched_table` (ts and ts_end columns).
CREATE PERFETTO MACRO _cpu_avg_utilization_per_period(interval Expr,
  sched_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT partition_ts AS ts,
    sum(ts_end - ts) / (cast_double!($interval) * (SELECT max(cpu) + 1 FROM sched))
      AS utilization,
    sum(ts_end - ts) / cast_double!($interval) AS unnormalized_utilization
  FROM _interval_partitions!(_partitions($interval), $sched_table)
  GROUP BY partition_ts
);

-- The cycles of running pieces of duration `dur` at `freq` kHz: millicycles, megacycles.
CREATE PERFETTO MACRO _cpu_cycles_cols(dur Expr, freq Expr)
RETURNS _ProjectionFragment AS
cast_int!(sum($dur * $freq / 1000)) AS millicycles,
cast_int!(sum($dur * $freq / 1000) / 1e9) AS megacycles;

-- The frequencies of running pieces: min_freq, max_freq and avg_freq (weighted by time, over
-- the pieces whose frequency is known).
CREATE PERFETTO MACRO _cpu_freq_cols(dur Expr, freq Expr)
RETURNS _ProjectionFragment AS
min($freq) AS min_freq,
max($freq) AS max_freq,
cast_int!(sum($dur * $freq / 1000) / (sum(iif($freq IS NOT NULL, $dur, NULL)) / 1000)) AS avg_freq;

-- The roll-up of rows of cpu_cycles_per_thread_per_cpu: millicycles, megacycles, runtime,
-- min_freq, max_freq, avg_freq.
CREATE PERFETTO MACRO _cpu_cycles_rollup_cols()
RETURNS _ProjectionFragment AS
sum(millicycles) AS millicycles,
cast_int!(sum(millicycles) / 1e9) AS megacycles,
sum(runtime) AS runtime,
min(min_freq) AS min_freq,
max(max_freq) AS max_freq,
cast_int!(sum(millicycles) / (sum(runtime) / 1000)) AS avg_freq;

-- The running time outside suspend (monotonic clock time) of pieces (ts, dur): awake_runtime.
CREATE PERFETTO MACRO _cpu_awake_runtime_col(ts Expr, dur Expr)
RETURNS _ProjectionFragment AS
sum(to_monotonic($ts + $dur) - to_monotonic($ts)) AS awake_runtime;

-- The pieces of _cpu_freq_per_thread cut to the interval [ts, ts + dur): ts, dur, utid, ucpu,
-- cpu and freq of each (the including module needs intervals.intersect).
CREATE PERFETTO MACRO _cpu_freq_per_thread_in_interval(ts Expr, dur Expr)
RETURNS TableOrSubquery AS
(
  SELECT part.ts, part.dur, f.utid, f.ucpu, f.cpu, f.freq
  FROM _interval_intersect_single!($ts, $dur, _cpu_freq_per_thread) AS part
  JOIN _cpu_freq_per_thread AS f USING (id)
);

-- The share of an interval's awake time that `awake` ns are, rounded to `digits`:
-- awake_utilization (over the CPU count too), awake_unnormalized_utilization.
CREATE PERFETTO MACRO _cpu_awake_utilization_cols(awake Expr, ts Expr, dur Expr, digits Expr)
RETURNS _ProjectionFragment AS
round($awake * 100.0 / (to_monotonic($ts + $dur) - to_monotonic($ts))
  / (SELECT max(cpu) + 1 FROM cpu), $digits) AS awake_utilization,
round($awake * 100.0 / (to_monotonic($ts + $dur) - to_monotonic($ts)), $digits)
  AS awake_unnormalized_utilization;

-- The CPU frequency intervals with a known frequency.
CREATE PERFETTO VIEW _cpu_freq_for_metrics AS
SELECT id, ts, dur, cpu, ucpu, freq FROM cpu_frequency_counters WHERE freq IS NOT NULL;

-- The finished sched slices of threads that are not idle threads.
CREATE PERFETTO VIEW _sched_without_id AS
SELECT ts, dur, utid, ucpu
FROM sched
WHERE utid NOT IN (SELECT utid FROM thread WHERE is_idle) AND dur != -1;

CREATE VIRTUAL TABLE _cpu_freq_per_thread_span_join USING SPAN_LEFT_JOIN(
  _sched_without_id PARTITIONED ucpu, _cpu_freq_for_metrics PARTITIONED ucpu);

CREATE PERFETTO TABLE _cpu_freq_per_thread_no_id AS
SELECT * FROM _cpu_freq_per_thread_span_join;

-- The pieces of running time of each thread at one CPU frequency (freq NULL where unknown).
CREATE PERFETTO TABLE _cpu_freq_per_thread AS
SELECT row_number() OVER (ORDER BY ucpu, ts) - 1 AS id, ts, dur, ucpu, cpu, utid, freq,
  id AS counter_id
FROM _cpu_freq_per_thread_no_id;
