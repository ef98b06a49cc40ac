-- trace_processor_shell v58.2's answers (checked with scripts/oracle_diff.sh). Without kernel
-- symbols, each lookup of one fails and counts interned_data_tokenizer_errors: one per kernel
-- function field present in a raw row's args (sched_blocked_reason's caller, the workqueue
-- events' and hrtimer_expire_entry's function), one per function the parser names whether the
-- field is there or not (sched_blocked_reason, workqueue_execute_start, hrtimer_expire_entry);
-- the event at 900 (before tracing started) makes none and counts
-- ftrace_packet_before_tracing_start once; those before 1500 make their raw rows' lookups only.
-- 1100: 1, 1200: 1, 1300: 1, 1600: 1, 1700: 2, 1750: 1, 1760: 1, 1900: 2, 1960: 1 = 11.
SELECT name, value FROM stats WHERE name IN ('interned_data_tokenizer_errors', 'ftrace_packet_before_tracing_start') ORDER BY name;
SELECT ts, name FROM ftrace_event ORDER BY ts;
SELECT ts, dur, name FROM slice ORDER BY ts;
