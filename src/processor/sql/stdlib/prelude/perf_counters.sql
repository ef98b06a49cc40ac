-- prelude.perf_counters: perf_counter_track, the counter tracks of the Linux perf profiler
-- (PerfSample packets: proto/perf_samples.c), one per perf session, CPU and counter, with
-- Perfetto's columns: the session and CPU come from the track's dimensions, is_timebase (the
-- counter whose overflow takes the samples) from its source args.

CREATE PERFETTO VIEW perf_counter_track(
  id ID(track.id), name STRING, type STRING, parent_id JOINID(track.id),
  source_arg_set_id ARGSETID, machine_id JOINID(machine.id), unit STRING, description STRING,
  perf_session_id LONG, cpu LONG, is_timebase BOOL
) AS
SELECT ct.id, ct.name, ct.type, ct.parent_id, ct.source_arg_set_id, ct.machine_id, ct.unit,
  ct.description,
  extract_arg(ct.dimension_arg_set_id, 'perf_session_id') AS perf_session_id,
  extract_arg(ct.dimension_arg_set_id, 'cpu') AS cpu,
  extract_arg(ct.source_arg_set_id, 'is_timebase') AS is_timebase
FROM counter_track AS ct
WHERE ct.type IN ('perf_cpu_counter', 'perf_global_counter');
