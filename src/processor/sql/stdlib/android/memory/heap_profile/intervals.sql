-- android.memory.heap_profile.intervals: each heapprofd dump of a heap as an interval, with
-- what the heap held and gained over it.

-- One row per dump of one heap of a process (heap_profile joined by process and end time):
--   retained: the bytes of the callsites whose allocations outnumber their frees in the dump
--     (the flamegraph's rule), allocated: the bytes allocated, delta: allocated minus freed;
--   ts: the window's start when the dump gives one before its end, else 1 ns after the
--     process's previous dump of the heap (after the trace's start for the first), never past
--     the end (a dump at the trace's start is an instant). id is the dump's first allocation's.
CREATE PERFETTO TABLE _android_heap_profile_intervals AS
WITH
  -- allocations (size > 0) and frees (size < 0) of each callsite in each dump
  callsite_dump AS (
    SELECT upid, heap_name, ts, min(id) AS first_id, sum(count) AS net_count,
      sum(size) AS net_size, sum(max(size, 0)) AS alloc_size
    FROM heap_profile_allocation
    GROUP BY upid, heap_name, ts, callsite_id
  ),
  per_dump AS (
    SELECT min(c.first_id) AS id, c.upid, c.heap_name, c.ts AS ts_end, hp.ts AS window_start,
      sum(CASE WHEN c.net_count > 0 THEN c.net_size ELSE 0 END) AS retained,
      sum(c.alloc_size) AS allocated, sum(c.net_size) AS delta
    FROM callsite_dump AS c
    JOIN heap_profile AS hp ON hp.upid = c.upid AND hp.ts_end = c.ts
    GROUP BY c.upid, c.heap_name, c.ts
  ),
  started AS (
    SELECT id, upid, heap_name, ts_end, retained, allocated, delta,
      CASE WHEN window_start < ts_end THEN window_start
        ELSE min(ts_end, 1 + lag(ts_end, 1, trace_start())
          OVER (PARTITION BY upid, heap_name ORDER BY ts_end)) END AS ts
    FROM per_dump
  )
SELECT id, upid, heap_name, ts, ts_end - ts AS dur, retained, allocated, delta
FROM started;
