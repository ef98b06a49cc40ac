-- trace: golden/json/json_node_excerpt.json
-- A Node.js trace (node --trace-event-categories v8,node,node.async_hooks; args dropped but
-- the M events', times shifted): X with tts/tdur, async b/e with tts (not read), thread names.
-- Expected answers are trace_processor_shell's.
select s.ts, s.dur, s.name, s.depth, s.thread_ts, s.thread_dur, t.type from slice s
join track t on s.track_id = t.id order by s.ts, s.name;
select utid, tid, name, upid, is_main_thread from thread order by utid;
select upid, pid, name from process order by upid;
select name, value from stats where value > 0 and name != 'slice_unterminated' order by name; -- trak's own stat
