-- trace: golden/json/json_thread_states.json
-- JSON thread-state events ("ph": "T", name the state): a thread_state row each, whole as given
-- (ts, dur, io_wait and blocked_function from args), in timestamp order whatever the file's; a
-- Running state with an integer "cpu" also makes a sched row on that CPU (no end state,
-- priority 0) and the CPU's cpu row; a "cpu" of 1.0 or on another state makes none; a T without
-- dur counts json_parser_failure. The same as trace_processor_shell v58.2.
SELECT ts.id, ts.ts, ts.dur, ts.state, ts.io_wait, ts.blocked_function, ts.cpu, thread.tid FROM thread_state ts JOIN thread USING (utid) ORDER BY ts.id;
SELECT s.id, s.ts, s.dur, s.cpu, s.end_state, s.priority, thread.tid FROM sched s JOIN thread USING (utid) ORDER BY s.id;
SELECT cpu FROM cpu ORDER BY cpu;
SELECT name, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' ORDER BY name;
