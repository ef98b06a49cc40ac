-- sched.latency: how long each Running period waited as runnable just before.
-- sched_latency_for_running_interval(thread_state_id, sched_id, utid, runnable_latency_id,
-- latency_dur): the Running thread state, its sched slice (same utid, ts and dur), and the
-- previous runnable state of sched.runnable with its duration.

INCLUDE PERFETTO MODULE sched.runnable;

-- Each Running thread state with its sched slice.
CREATE PERFETTO VIEW _sched_with_thread_state_join AS
SELECT ts_row.id AS thread_state_id, s.id AS sched_id
FROM sched AS s
JOIN thread_state AS ts_row ON ts_row.utid = s.utid AND ts_row.ts = s.ts AND ts_row.dur = s.dur;

-- Scheduling latency of Running thread states: the duration of the runnable state before each.
CREATE PERFETTO TABLE sched_latency_for_running_interval(
  -- The Running thread state.
  thread_state_id JOINID(thread_state.id),
  -- The matching slice of the sched table.
  sched_id JOINID(sched.id),
  -- The thread.
  utid JOINID(thread.id),
  -- The runnable state before; its duration is latency_dur.
  runnable_latency_id JOINID(thread_state.id),
  -- The scheduling latency: the duration of runnable_latency_id.
  latency_dur LONG
) AS
SELECT prev.thread_state_id, j.sched_id, runnable.utid, prev.prev_runnable_id AS runnable_latency_id,
  runnable.dur AS latency_dur
FROM (SELECT id AS thread_state_id, prev_runnable_id FROM sched_previous_runnable_on_thread) AS prev
JOIN thread_state AS runnable ON runnable.id = prev.prev_runnable_id
JOIN _sched_with_thread_state_join AS j ON j.thread_state_id = prev.thread_state_id;
