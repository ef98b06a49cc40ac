-- mark_victim (the OOM killer's choice): its raw row, and a zero-length slice "mem.oom_kill" of
-- no category on the victim's thread track (the victim, not the writer: a thread the trace
-- has not seen is made). The same as trace_processor_shell v58.2.
SELECT s.ts, s.dur, s.name, s.category, s.depth, t.tid, t.upid FROM slice s JOIN thread_track tt ON s.track_id = tt.id JOIN thread t USING (utid) ORDER BY s.ts;
SELECT e.ts, e.name, e.utid, a.key, a.int_value FROM ftrace_event e JOIN args a USING (arg_set_id) ORDER BY e.ts, a.id;
