-- trace: systrace/workqueue_rss.systrace
-- trace_processor_shell v58.2's answers (checked with scripts/oracle_diff.sh), on lines cut from
-- a tracefs `trace` file of this machine's kernel: workqueue_execute_start/end make slices of
-- category "workqueue" on the worker thread's track, named by the text after "function ", without
-- args; the thread track's dimension set (utid) is made when the first slice makes the track, so
-- the sched_switch rows after it number their sets one later. rss_stat as kernels since 6.2 print
-- it (type=MM_ANONPAGES size=315392B, no member) is dropped without a systrace_parse_failure
-- (Perfetto counts none; trak counts its own systrace_event_unparsed, not asked for here).
SELECT name, value FROM stats WHERE name = 'systrace_parse_failure';
SELECT id, ts, dur, track_id, category, name, depth, arg_set_id FROM slice ORDER BY id;
SELECT id, type, dimension_arg_set_id FROM track ORDER BY id;
SELECT id, ts, name, cpu, arg_set_id FROM ftrace_event ORDER BY id;
SELECT count(*), count(DISTINCT utid) FROM thread_state;
