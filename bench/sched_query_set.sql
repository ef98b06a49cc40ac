-- Queries of Linux scheduling data for bench/query_bench (issue #27, docs/performance.md):
-- thread_state over a sched_bench trace, slices.time_in_state over a systrace_bench one.

-- query: thread_state
SELECT COUNT(*), SUM(dur) FROM thread_state;

-- query: thread_state_by_state
SELECT state, COUNT(*), SUM(dur) FROM thread_state GROUP BY state;

-- query: time_in_state
INCLUDE PERFETTO MODULE slices.time_in_state;
SELECT COUNT(*), SUM(dur) FROM thread_slice_time_in_state;
