-- prelude.cpu_scheduling: Perfetto's scheduling views over the tables the ftrace importer fills
-- (import/ftrace/): cpu, sched (and sched_slice), thread_state, spurious_sched_wakeup,
-- ftrace_event (and raw), with Perfetto's columns; cpu_counter_track is the counter tracks with a
-- 'cpu' dimension (ftrace's cpufreq, cpuidle, ...), as Perfetto makes it. On the host a CPU's
-- ucpu is its number, so sched.cpu is the ucpu, as in Perfetto.

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
SELECT id, id AS ucpu, cpu, cluster_id, processor, machine_id, capacity, arg_set_id
FROM __intrinsic_cpu
WHERE cpu IS NOT NULL;

CREATE PERFETTO VIEW cpu_available_frequencies(
  id ID, cpu LONG, freq LONG, ucpu LONG
) AS
SELECT id, ucpu AS cpu, freq, ucpu FROM __intrinsic_cpu_freq;

CREATE PERFETTO VIEW sched(
  id ID, ts TIMESTAMP, dur DURATION, cpu LONG, utid JOINID(thread.id), end_state STRING,
  priority LONG, ucpu LONG, ts_end LONG
) AS
SELECT id, ts, dur, ucpu AS cpu, utid, end_state, priority, ucpu, ts + dur AS ts_end
FROM __intrinsic_sched_slice;

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
SELECT id, ts, dur, ucpu AS cpu, utid, state, io_wait, blocked_function, waker_utid, waker_id,
  irq_context, ucpu
FROM __intrinsic_thread_state;

CREATE PERFETTO VIEW spurious_sched_wakeup(
  id ID, ts TIMESTAMP, thread_state_id LONG, irq_context LONG, utid LONG, waker_utid LONG
) AS
SELECT * FROM __intrinsic_spurious_sched_wakeup;

CREATE PERFETTO VIEW ftrace_event(
  id ID, ts TIMESTAMP, name STRING, cpu LONG, utid JOINID(thread.id), arg_set_id ARGSETID,
  common_flags LONG, ucpu LONG
) AS
SELECT id, ts, name, ucpu AS cpu, utid, arg_set_id, common_flags, ucpu
FROM __intrinsic_ftrace_event;

CREATE PERFETTO VIEW raw(
  id ID, ts TIMESTAMP, name STRING, cpu LONG, utid JOINID(thread.id), arg_set_id ARGSETID,
  common_flags LONG, ucpu LONG
) AS
SELECT * FROM ftrace_event;
