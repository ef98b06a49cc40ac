-- Perfetto's answer (trace_processor_shell v58.2): sched.thread_executing_span's wakeup graph and
-- critical paths, and sched.thread_executing_span_with_slice's stacks.
INCLUDE PERFETTO MODULE sched.thread_executing_span; SELECT * FROM _wakeup_graph ORDER BY id;
INCLUDE PERFETTO MODULE sched.thread_executing_span; SELECT root_id, depth, ts, dur, id, parent_id FROM _critical_path_with_depth_by_roots!((SELECT id AS root_node_id FROM _wakeup_graph), _wakeup_graph) ORDER BY root_id, ts, depth;
INCLUDE PERFETTO MODULE sched.thread_executing_span; SELECT root_id, id, ts, dur FROM _critical_path_by_roots!((SELECT id AS root_node_id FROM _wakeup_graph), _wakeup_graph) ORDER BY root_id, ts;
INCLUDE PERFETTO MODULE sched.thread_executing_span; SELECT root_node_id, capacity FROM _intervals_to_roots!((SELECT 1 AS utid, 4100 AS ts, 2000 AS dur UNION ALL SELECT 4 AS utid, 1000 AS ts, 5000 AS dur), _wakeup_graph) ORDER BY root_node_id;
INCLUDE PERFETTO MODULE sched.thread_executing_span; SELECT * FROM _critical_path_by_intervals!((SELECT 1 AS utid, 4100 AS ts, 2000 AS dur UNION ALL SELECT 4 AS utid, 1000 AS ts, 5000 AS dur), _wakeup_graph) ORDER BY root_utid, ts, id;
INCLUDE PERFETTO MODULE sched.thread_executing_span; SELECT * FROM _thread_executing_span_critical_path(1, 1000, 6500) ORDER BY ts;
INCLUDE PERFETTO MODULE sched.thread_executing_span; SELECT * FROM _thread_executing_span_critical_path((SELECT utid FROM thread WHERE tid = 200), 3000, 3000) ORDER BY ts;
INCLUDE PERFETTO MODULE sched.thread_executing_span_with_slice; SELECT ts, dur, ts_end, utid, root_utid FROM _critical_path_all ORDER BY ts, root_utid, utid, dur;
INCLUDE PERFETTO MODULE sched.thread_executing_span_with_slice; SELECT * FROM _critical_path_thread_state_slice ORDER BY root_utid, ts, utid, thread_state_id;
INCLUDE PERFETTO MODULE sched.thread_executing_span_with_slice; SELECT * FROM _thread_executing_span_critical_path_stack(1, 1000, 6500) ORDER BY ts, stack_depth, id, name;
INCLUDE PERFETTO MODULE sched.thread_executing_span_with_slice; SELECT * FROM _critical_path_stack(4, 1500, 3000, 0, 1, 0, 1) ORDER BY ts, stack_depth, id, name;
