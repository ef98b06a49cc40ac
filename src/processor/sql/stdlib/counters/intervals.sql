-- counters.intervals: counter_leading_intervals!(counter_table) turns counter samples
-- (id, ts, track_id, value) into intervals (id, ts, dur, track_id, value, next_value,
-- delta_value): each value holds from its sample until the next kept sample of its track, the
-- last until the end of the trace. Of a run of equal values the first, the second and the last
-- samples are kept: the second stands for all the middle ones, so a run stays three rows. The
-- last run of a track keeps only its first two samples (Perfetto keeps a run's last sample when
-- a different value follows it).

CREATE PERFETTO MACRO counter_leading_intervals(counter_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    _cli_changes AS (
      SELECT id, ts, track_id, value,
        IIF(value IS lag(value) OVER (PARTITION BY track_id ORDER BY ts), 0, 1) AS _starts_run
      FROM $counter_table
    ),
    _cli_runs AS (
      SELECT *, sum(_starts_run) OVER (PARTITION BY track_id ORDER BY ts
        ROWS UNBOUNDED PRECEDING) AS _run
      FROM _cli_changes
    ),
    _cli_pos AS (
      SELECT *,
        row_number() OVER (PARTITION BY track_id, _run ORDER BY ts) AS _pos,
        count(*) OVER (PARTITION BY track_id, _run) AS _len,
        max(_run) OVER (PARTITION BY track_id) AS _last_run
      FROM _cli_runs
    ),
    _cli_kept AS (
      SELECT id, ts, track_id, value FROM _cli_pos
      WHERE _pos <= 2 OR (_pos = _len AND _run < _last_run)
    )
  SELECT id, ts,
    coalesce(lead(ts) OVER (PARTITION BY track_id ORDER BY ts), trace_end()) - ts AS dur,
    track_id, value,
    lead(value) OVER (PARTITION BY track_id ORDER BY ts) AS next_value,
    value - lag(value) OVER (PARTITION BY track_id ORDER BY ts) AS delta_value
  FROM (SELECT id, ts, track_id, CAST(value AS REAL) AS value FROM _cli_kept)
);
