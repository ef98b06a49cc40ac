-- linux.memory.high_watermark: the most resident memory each process had reached, over time.

INCLUDE PERFETTO MODULE counters.intervals;
INCLUDE PERFETTO MODULE linux.memory.process;

CREATE PERFETTO TABLE _memory_rss_high_watermark_per_process_table AS
WITH
  rss AS (
    SELECT ts, dur, upid,
      coalesce(file_rss, 0) + coalesce(anon_rss, 0) + coalesce(shmem_rss, 0) AS rss
    FROM _memory_rss_and_swap_per_process_table
  ),
  -- the running maximum as a counter keyed by process (track_id holds the upid), so that
  -- counter_leading_intervals! merges its equal runs
  running_max AS (
    SELECT ts, max(rss) OVER (PARTITION BY upid ORDER BY ts) AS value, upid AS track_id, 0 AS id
    FROM rss
  )
SELECT ts, dur, track_id AS upid, CAST(value AS INT) AS rss_high_watermark
FROM counter_leading_intervals!(running_max);

-- Each process's resident memory high watermark: one row per interval in which it holds.
CREATE PERFETTO VIEW memory_rss_high_watermark_per_process(
  -- Start of the interval.
  ts TIMESTAMP,
  -- Its length.
  dur DURATION,
  -- The process.
  upid JOINID(process.id),
  -- Its pid.
  pid LONG,
  -- Its name.
  process_name STRING,
  -- The most resident memory (anon + file + shmem) the process had so far, bytes.
  rss_high_watermark LONG
) AS
SELECT h.ts, h.dur, h.upid, p.pid, p.name AS process_name, h.rss_high_watermark
FROM _memory_rss_high_watermark_per_process_table AS h
JOIN process AS p USING (upid);
