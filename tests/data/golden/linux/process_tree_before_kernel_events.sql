-- Perfetto's answer (trace_processor_shell v58.2 on the same trace): one process for pid 400
-- and one thread for tid 401, each started by its task_newtask and named by the scan. (Row ids
-- are left out: Perfetto numbers the rows in time order, trak the scan's when it reads it.)
SELECT p.pid, p.name, p.cmdline, p.start_ts, pp.pid AS ppid, t.tid, t.name AS tname,
  t.start_ts AS tstart,
  (SELECT count(*) FROM thread_track tt JOIN slice s ON s.track_id = tt.id
   WHERE tt.utid = t.utid) AS slices
FROM process p LEFT JOIN process pp ON p.parent_upid = pp.upid
LEFT JOIN thread t ON t.upid = p.upid
WHERE p.pid > 0
ORDER BY p.pid, t.tid;
