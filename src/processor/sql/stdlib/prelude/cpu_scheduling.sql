-- prelude.cpu_scheduling: the scheduling tables' names with Perfetto's columns, so that every
-- trace has them and the sched.* and linux.cpu.* modules always load. cpu_counter_track is the
-- counter tracks with a 'cpu' dimension (ftrace's cpufreq, cpuidle, ...), as Perfetto makes it.
-- sched (and sched_slice), thread_state and cpu are empty until the ftrace importer fills them
-- (issue #27, phase 2, replaces these views with its tables).

CREATE PERFETTO VIEW cpu_counter_track(
  id ID(track.id), name STRING, type STRING, parent_id JOINID(track.id),
  source_arg_set_id ARGSETID, machine_id JOINID(machine.id), unit STRING, description STRING,
  cpu LONG
) AS
SELECT ct.id, ct.name, ct.type, ct.parent_id, ct.source_arg_set_id, ct.machine_id, ct.unit,
  ct.description, a.int_value AS cpu
FROM counter_track AS ct
JOIN args AS a ON a.arg_set_id = ct.dimension_arg_set_id AND a.key = 'cpu';

CREATE PERFETTO VIEW cpu(
  id ID, ucpu ID, cpu LONG, cluster_id LONG, processor STRING, machine_id JOINID(machine.id),
  capacity LONG, arg_set_id ARGSETID
) AS
SELECT 0 AS id, 0 AS ucpu, 0 AS cpu, 0 AS cluster_id, NULL AS processor, NULL AS machine_id,
  NULL AS capacity, NULL AS arg_set_id
WHERE 0;

CREATE PERFETTO VIEW sched(
  id ID, ts TIMESTAMP, dur DURATION, cpu LONG, utid JOINID(thread.id), end_state STRING,
  priority LONG, ucpu LONG, ts_end LONG
) AS
SELECT 0 AS id, 0 AS ts, 0 AS dur, 0 AS cpu, 0 AS utid, NULL AS end_state, 0 AS priority,
  0 AS ucpu, 0 AS ts_end
WHERE 0;

CREATE PERFETTO VIEW sched_slice(
  id ID, ts TIMESTAMP, dur DURATION, cpu LONG, utid JOINID(thread.id), end_state STRING,
  priority LONG, ucpu LONG
) AS
SELECT id, ts, dur, cpu, utid, end_state, priority, ucpu FROM sched;

CREATE PERFETTO VIEW thread_state(
  id ID, ts TIMESTAMP, dur DURATION, cpu LONG, utid JOINID(thread.id), state STRING,
  io_wait LONG, blocked_function STRING, waker_utid JOINID(thread.id),
  waker_id JOINID(thread_state.id), irq_context LONG, ucpu JOINID(cpu.id)
) AS
SELECT 0 AS id, 0 AS ts, 0 AS dur, NULL AS cpu, 0 AS utid, NULL AS state, NULL AS io_wait,
  NULL AS blocked_function, NULL AS waker_utid, NULL AS waker_id, NULL AS irq_context,
  NULL AS ucpu
WHERE 0;
