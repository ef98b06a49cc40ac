-- linux.threads: the kernel's threads. linux_kernel_threads(upid, utid, pid, tid,
-- process_name, thread_name, machine_id) lists the threads of kthreadd (pid 2) and of the
-- processes whose parent is kthreadd, as kernel threads are processes of their own.

-- The kernel threads of the trace, with their process data.
CREATE PERFETTO TABLE linux_kernel_threads(
  -- The kernel thread's process.
  upid JOINID(process.id),
  -- The kernel thread.
  utid JOINID(thread.id),
  -- The process's pid.
  pid LONG,
  -- The thread's tid.
  tid LONG,
  -- The process's name.
  process_name STRING,
  -- The thread's name.
  thread_name STRING,
  -- The machine the process ran on.
  machine_id JOINID(machine.id)
) AS
WITH kthreadd AS (SELECT upid FROM process WHERE pid = 2),
kernel_processes AS (
  SELECT upid, pid, name, machine_id FROM process WHERE upid IN (SELECT upid FROM kthreadd)
  UNION
  SELECT upid, pid, name, machine_id FROM process
  WHERE parent_upid IN (SELECT upid FROM kthreadd)
)
SELECT kp.upid, th.utid, kp.pid, th.tid, kp.name AS process_name, th.name AS thread_name,
  kp.machine_id
FROM kernel_processes AS kp
JOIN thread AS th ON th.upid = kp.upid;
