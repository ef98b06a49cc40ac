-- linux.memory.general: every process counter as intervals. A value lasts until the track's
-- next one; the last one until its process ends (or the trace does) and one nanosecond more.

CREATE PERFETTO VIEW _all_counters_per_process AS
SELECT
  c.ts,
  lead(c.ts, 1, (
    SELECT coalesce(p.end_ts, trace_end()) FROM process AS p WHERE p.upid = t.upid
  ) + 1) OVER (PARTITION BY c.track_id ORDER BY c.ts) - c.ts AS dur,
  t.upid,
  c.value,
  c.track_id,
  t.name
FROM counter AS c
JOIN process_counter_track AS t ON t.id = c.track_id
WHERE t.upid IS NOT NULL;
