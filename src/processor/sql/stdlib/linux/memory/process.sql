-- linux.memory.process: each process's resident memory (anonymous, file-backed, shared) and
-- swap over time, from its mem.rss.* and mem.swap counters (rss_stat events and the polled
-- /proc/PID/status values), joined into intervals in which none of them changes.

INCLUDE PERFETTO MODULE linux.memory.general;

CREATE PERFETTO VIEW _anon_rss AS
SELECT ts, dur, upid, value AS anon_rss_val FROM _all_counters_per_process
WHERE name = 'mem.rss.anon';

CREATE PERFETTO VIEW _file_rss AS
SELECT ts, dur, upid, value AS file_rss_val FROM _all_counters_per_process
WHERE name = 'mem.rss.file';

CREATE PERFETTO VIEW _shmem_rss AS
SELECT ts, dur, upid, value AS shmem_rss_val FROM _all_counters_per_process
WHERE name = 'mem.rss.shmem';

CREATE PERFETTO VIEW _swap AS
SELECT ts, dur, upid, value AS swap_val FROM _all_counters_per_process
WHERE name = 'mem.swap';

-- The four counters side by side, per process: an interval where any of them is known.
CREATE VIRTUAL TABLE _anon_swap_sj USING SPAN_OUTER_JOIN(
  _anon_rss PARTITIONED upid, _swap PARTITIONED upid);
CREATE VIRTUAL TABLE _anon_swap_file_sj USING SPAN_OUTER_JOIN(
  _anon_swap_sj PARTITIONED upid, _file_rss PARTITIONED upid);
CREATE VIRTUAL TABLE _rss_swap_sj USING SPAN_OUTER_JOIN(
  _anon_swap_file_sj PARTITIONED upid, _shmem_rss PARTITIONED upid);

CREATE PERFETTO TABLE _memory_rss_and_swap_per_process_table AS
SELECT
  ts,
  dur,
  upid,
  CAST(anon_rss_val AS INT) AS anon_rss,
  CAST(file_rss_val AS INT) AS file_rss,
  CAST(shmem_rss_val AS INT) AS shmem_rss,
  CAST(swap_val AS INT) AS swap
FROM _rss_swap_sj;

-- Each process's memory over time: one row per interval in which none of its counters changes.
CREATE PERFETTO VIEW memory_rss_and_swap_per_process(
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
  -- Anonymous resident memory (mem.rss.anon), bytes.
  anon_rss LONG,
  -- File-backed resident memory (mem.rss.file), bytes.
  file_rss LONG,
  -- Shared resident memory (mem.rss.shmem), bytes.
  shmem_rss LONG,
  -- Resident memory: anon_rss + file_rss + shmem_rss, a missing shmem_rss taken as 0.
  rss LONG,
  -- Swapped-out memory (mem.swap), bytes.
  swap LONG,
  -- anon_rss + swap, a missing swap taken as 0.
  anon_rss_and_swap LONG,
  -- rss + swap, a missing shmem_rss or swap taken as 0.
  rss_and_swap LONG
) AS
SELECT
  m.ts,
  m.dur,
  m.upid,
  p.pid,
  p.name AS process_name,
  m.anon_rss,
  m.file_rss,
  m.shmem_rss,
  -- anon and file values are always there once a process runs; shmem and swap often never
  -- are, so only those two count as 0 when missing
  m.file_rss + m.anon_rss + coalesce(m.shmem_rss, 0) AS rss,
  m.swap,
  m.anon_rss + coalesce(m.swap, 0) AS anon_rss_and_swap,
  m.anon_rss + m.file_rss + coalesce(m.shmem_rss, 0) + coalesce(m.swap, 0) AS rss_and_swap
FROM _memory_rss_and_swap_per_process_table AS m
JOIN process AS p USING (upid);
