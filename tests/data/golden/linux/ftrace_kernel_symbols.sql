-- trace_processor_shell v58.2's answers (checked with scripts/oracle_diff.sh). A field whose
-- value is an iid of the sequence's kernel symbols is named by it: the raw arg a string, the
-- blocked function, the workqueue, hrtimer and shrinker slices' names. The second bundle clears
-- the sequence's state: iid 1 is another symbol there, iid 2 none. Failed lookups: 900 (its
-- sequence has no symbols: 1), 1500 (function 99: the raw arg and the slice's name, 2), 2100
-- (2) and 2200 (1) = 6; workqueue_execute_end at 1550 has no function field (0).
SELECT name, value FROM stats WHERE name IN ('interned_data_tokenizer_errors') ORDER BY name;
SELECT ts, dur, tid, state, io_wait, blocked_function FROM thread_state JOIN thread USING (utid) WHERE tid IN (7, 10) ORDER BY ts;
SELECT ts, dur, name, category FROM slice ORDER BY ts;
SELECT s.ts, a.key, a.value_type, a.display_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.ts, a.key;
SELECT e.ts, e.name, a.key, a.value_type, a.display_value FROM ftrace_event e JOIN args a USING (arg_set_id) WHERE a.key IN ('caller', 'function', 'shrink') ORDER BY e.ts, a.key;
