-- GenericKernelTaskStateEvent (TracePacket 117), a kernel traced without ftrace: each event is
-- one task entering a state on a CPU. RUNNING opens a sched_slice on the CPU; the running task's
-- own next state closes it with that end state (worker at 3000); a task started while another
-- runs closes the other's slice with no end state, which the other's event at the same time
-- then gives (io: D at 4000, also the state of its pending thread_state row). CREATED starts a
-- thread (start_ts), DESTROYED ends it (end_ts), a state after DEAD is dropped
-- (generic_task_state_invalid_order), UNKNOWN counts task_state_invalid. Renames (120) name
-- the thread (a later event's comm names it again); frequencies (118, Hz) are cpufreq
-- counters in kHz. The stat's description is Perfetto's line (its diff tests compare it).
-- The same as trace_processor_shell v58.2.
SELECT ts, dur, cpu, utid, end_state, priority, ucpu FROM sched_slice ORDER BY id;
SELECT ts, dur, cpu, utid, state, ucpu FROM thread_state ORDER BY id;
SELECT utid, tid, name, start_ts, end_ts, upid FROM thread ORDER BY utid;
SELECT t.name, c.ts, c.value, extract_arg(t.dimension_arg_set_id, 'cpu') AS cpu FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts;
SELECT name, severity, source, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' ORDER BY name;
SELECT name, description FROM stats WHERE name = 'generic_task_state_invalid_order';
