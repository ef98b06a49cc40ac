-- Perfetto's answer (trace_processor_shell v58.2 on the same trace): the ftrace_event rows in
-- the order the import applied them, and the thread states that order decides.
SELECT 'raw' AS tbl, id, ts, name, cpu, utid, NULL AS state FROM ftrace_event
UNION ALL
SELECT 'thread_state', id, ts, NULL, cpu, utid, state FROM thread_state
ORDER BY 1, 2;
