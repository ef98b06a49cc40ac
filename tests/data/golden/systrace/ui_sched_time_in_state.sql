-- trace: systrace/ui_sched.systrace
-- slices.time_in_state on the viewer's scheduling story (six threads on two CPUs, IO and
-- non-IO blocked reasons): every slice's time per state. Expected output: trace_processor_shell
-- v58.2.
INCLUDE PERFETTO MODULE slices.time_in_state;
SELECT * FROM thread_slice_time_in_state;
