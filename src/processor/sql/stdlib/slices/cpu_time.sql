-- slices.cpu_time: how long each thread slice's thread was on a CPU during the slice.
-- thread_slice_cpu_time(id, name, utid, thread_name, upid, process_name, cpu_time) has a row
-- per thread slice (dur > 0) that overlaps one of its thread's sched slices;
-- thread_slice_cpu_cycles is linux.cpu.utilization.slice's cycles under this module's name.
-- The slices meet their thread's sched slices in C (slice_thread_time.c): the answer is
-- _interval_intersect!'s over _thread_slice_intervals!() and sched (dur > 0) by utid, summed;
-- a view of the C table, which computes the answer at its first scan and keeps it.

INCLUDE PERFETTO MODULE intervals.intersect;

INCLUDE PERFETTO MODULE linux.cpu.utilization.slice;

INCLUDE PERFETTO MODULE slices.with_context;

-- The time each thread slice spent running on a CPU (needs scheduling data).
CREATE PERFETTO VIEW thread_slice_cpu_time(
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
  -- The time the thread ran during the slice.
  cpu_time LONG
) AS
SELECT id, name, utid, thread_name, upid, process_name, cpu_time
FROM __trak_thread_slice_cpu_time;

-- CPU cycles of each thread slice.
CREATE PERFETTO VIEW thread_slice_cpu_cycles(
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
  -- CPU millicycles (NULL unless the whole slice ran at known frequencies).
  millicycles LONG,
  -- CPU megacycles.
  megacycles LONG
) AS
SELECT id, name, utid, thread_name, upid, process_name, millicycles, megacycles
FROM cpu_cycles_per_thread_slice;
