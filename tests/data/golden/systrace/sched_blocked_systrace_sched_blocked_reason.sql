-- trace: systrace/sched_blocked_systrace.systrace
-- Perfetto's diff test parser/parsing/tests.py:test_sched_blocked_systrace_sched_blocked_reason
-- (expected output copied from it): sched_blocked_reason sets io_wait of the thread's last
-- blocked (D) state.
SELECT ts, tid, io_wait
FROM thread_state
JOIN thread USING (utid)
WHERE state = 'D'
ORDER BY ts;
