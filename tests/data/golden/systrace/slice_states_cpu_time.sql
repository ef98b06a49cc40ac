-- trace: systrace/slice_states.systrace
-- slices.cpu_time on the story of slice_states_time_in_state: each slice's Running time.
-- Expected output: trace_processor_shell v58.2.
INCLUDE PERFETTO MODULE slices.cpu_time;
SELECT * FROM thread_slice_cpu_time;
