-- linux.cpu.utilization.slice: CPU cycles per thread slice, from its thread's running time at
-- each CPU frequency. A slice whose running time is not all at a known frequency gets NULL.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;

INCLUDE PERFETTO MODULE intervals.intersect;

INCLUDE PERFETTO MODULE slices.with_context;

-- The cycles of the running pieces of `slices` (thread slices: id, ts, dur, utid), per slice,
-- and the time they cover at a known frequency.
CREATE PERFETTO MACRO _cycles_of_thread_slices(slices TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT ii.id_0 AS slice_id, sum(ii.dur) AS dur, _cpu_cycles_cols!(ii.dur, f.freq)
  FROM _interval_intersect!(($slices, _cpu_freq_per_thread), (utid)) AS ii
  JOIN _cpu_freq_per_thread AS f ON f.id = ii.id_1
  WHERE f.freq IS NOT NULL
  GROUP BY ii.id_0
);

-- CPU cycles of each thread slice (NULL unless its whole duration ran at known frequencies).
CREATE PERFETTO TABLE cpu_cycles_per_thread_slice(
  -- The slice.
  id JOINID(slice.id),
  -- The slice's name.
  name STRING,
  -- Its thread.
  utid JOINID(thread.id),
  -- The thread's name.
  thread_name STRING,
  -- Its process.
  upid JOINID(process.id),
  -- The process's name.
  process_name STRING,
  -- CPU millicycles.
  millicycles LONG,
  -- CPU megacycles.
  megacycles LONG
) AS
SELECT ts.id, ts.name, ts.utid, ts.thread_name, ts.upid, ts.process_name, cy.millicycles,
  cy.megacycles
FROM thread_slice AS ts
LEFT JOIN _cycles_of_thread_slices!(_thread_slice_intervals!()) AS cy
  ON cy.slice_id = ts.id AND cy.dur = ts.dur;

-- cpu_cycles_per_thread_slice for the parts of slices inside an interval (for a few intervals).
CREATE PERFETTO FUNCTION cpu_cycles_per_thread_slice_in_interval(
  -- The interval's start.
  ts TIMESTAMP,
  -- The interval's duration.
  dur DURATION)
RETURNS TABLE(
  -- The slice.
  id JOINID(slice.id),
  -- The slice's name.
  name STRING,
  -- Its thread.
  utid JOINID(thread.id),
  -- The thread's name.
  thread_name STRING,
  -- Its process.
  upid JOINID(process.id),
  -- The process's name.
  process_name STRING,
  -- CPU millicycles.
  millicycles LONG,
  -- CPU megacycles.
  megacycles LONG
) AS
WITH cut AS (
  SELECT part.id, part.ts, part.dur, s.utid, s.name, s.thread_name, s.upid, s.process_name
  FROM _interval_intersect_single!($ts, $dur, _thread_slice_intervals!()) AS part
  JOIN thread_slice AS s USING (id)
)
SELECT cut.id, cut.name, cut.utid, cut.thread_name, cut.upid, cut.process_name, cy.millicycles,
  cy.megacycles
FROM cut
LEFT JOIN _cycles_of_thread_slices!((SELECT id, ts, dur, utid FROM cut)) AS cy
  ON cy.slice_id = cut.id AND cy.dur = cut.dur;
