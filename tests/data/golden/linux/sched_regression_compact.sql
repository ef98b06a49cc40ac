-- The tables of tests/data/linux/gen_sched_trace.py's compact trace (4 CPUs, bundles out of order
-- across CPUs, events of different CPUs at one nanosecond, lost events), as Perfetto's
-- trace_processor_shell v58.2 answers on the same trace: the import's speed-ups must not change
-- a row.
SELECT 'sched' AS tbl, id, printf('%d,%d,%d,%d,%s,%d', ts, dur, cpu, utid, end_state, priority) AS v
FROM sched
UNION ALL
SELECT 'thread_state', id, printf('%d,%d,%d,%s,%s,%s,%s,%s', ts, dur, utid, state, cpu, waker_utid,
  waker_id, irq_context)
FROM thread_state
UNION ALL
SELECT 'raw', r.id, printf('%d,%s,%d,%d,%d,%s', r.ts, r.name, r.cpu, r.utid, r.common_flags,
  (SELECT group_concat(kv, ';') FROM (SELECT a.key || '=' || a.display_value AS kv FROM args a
   WHERE a.arg_set_id = r.arg_set_id ORDER BY a.key)))
FROM ftrace_event r
UNION ALL
SELECT 'thread', utid, printf('%d,%s,%s,%s,%s', tid, name, upid, start_ts, end_ts) FROM thread
UNION ALL
SELECT 'spurious', id, printf('%d,%d,%d,%s', ts, utid, thread_state_id, waker_utid)
FROM spurious_sched_wakeup
UNION ALL
SELECT 'stats', idx, printf('%s,%d', name, value) FROM stats WHERE value != 0 AND source = 'trace'
ORDER BY 1, 2;
