-- trace: systrace/unknown_thread_name.systrace
-- Perfetto's diff test parser/process_tracking/tests.py:test_unknown_thread_name_tracking
-- (expected output copied from it): a "<...>" task name does not replace the name the
-- sched_switch gave the thread.
SELECT tid, pid, process.name AS pname, thread.name AS tname
FROM thread
LEFT JOIN process USING(upid)
WHERE tid > 0
ORDER BY tid;
