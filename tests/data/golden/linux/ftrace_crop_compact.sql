-- Expected output from Perfetto's diff test (and trace_processor_shell v58.2 on this trace).
SELECT cpu, ts, dur, tid, thread.name
FROM sched JOIN thread USING (utid)
ORDER BY cpu ASC, ts ASC;
