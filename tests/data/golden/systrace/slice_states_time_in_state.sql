-- trace: systrace/slice_states.systrace
-- slices.time_in_state: nested slices over Running, R and three D states (no blocked reason,
-- IO 0 in f0, IO 1 in f1, ordered NULL, 0, 1), a zero-length slice, an unfinished one and a
-- thread without scheduling data (none of which has rows). Expected output:
-- trace_processor_shell v58.2.
INCLUDE PERFETTO MODULE slices.time_in_state;
SELECT * FROM thread_slice_time_in_state;
