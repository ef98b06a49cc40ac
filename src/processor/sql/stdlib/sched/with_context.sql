-- sched.with_context: sched slices with their thread's and process's names.
-- sched_with_thread_process(id, ts, dur, utid, upid, thread_name, process_name, cpu,
-- end_state, priority); a thread without a process has NULL upid and process_name.

-- Scheduling slices (Running periods) with the thread and process that ran.
CREATE PERFETTO VIEW sched_with_thread_process(
  -- The sched slice.
  id ID(sched.id),
  -- Start of the Running period.
  ts TIMESTAMP,
  -- Its duration.
  dur DURATION,
  -- The thread that ran.
  utid JOINID(thread.id),
  -- Its process.
  upid JOINID(process.id),
  -- The thread's name.
  thread_name STRING,
  -- The process's name.
  process_name STRING,
  -- The CPU it ran on.
  cpu LONG,
  -- The thread's state when the slice ended (sched.end_state).
  end_state STRING,
  -- The kernel priority it ran at.
  priority LONG
) AS
SELECT s.id, s.ts, s.dur, s.utid, th.upid, th.name AS thread_name, pr.name AS process_name,
  s.cpu, s.end_state, s.priority
FROM sched AS s
JOIN thread AS th ON th.utid = s.utid
LEFT JOIN process AS pr ON pr.upid = th.upid;
