-- trace: systrace/slice_states.systrace
-- sched.thread_state_flattened (a slice's flattened pieces cut by thread state, per piece and
-- summed per state; by slice, by thread, any) and counters.global_tracks on a systrace text
-- trace; trace_processor_shell v58.2's answers.
INCLUDE PERFETTO MODULE sched.thread_state_flattened; SELECT * FROM _get_flattened_thread_state(0, NULL);
INCLUDE PERFETTO MODULE sched.thread_state_flattened; SELECT * FROM _get_flattened_thread_state_aggregated(0, NULL);
INCLUDE PERFETTO MODULE sched.thread_state_flattened; SELECT * FROM _get_flattened_thread_state_aggregated(NULL, NULL);
INCLUDE PERFETTO MODULE sched.thread_state_flattened; SELECT * FROM _get_flattened_thread_state(NULL, 2);
INCLUDE PERFETTO MODULE counters.global_tracks; SELECT id, name, _counter_track_is_only_name_dimension(id) AS only_name FROM counter_track ORDER BY id;
