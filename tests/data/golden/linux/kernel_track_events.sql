-- trace: linux/kernel_track_events.pb
-- Kernel track events as trace_processor_shell v58.2 makes them (answers written down from it,
-- checked with scripts/oracle_diff.sh): self-describing ftrace events named by Perfetto's
-- convention become slices (B, E, I: a begin, the end of the innermost, an instant of dur 0)
-- and counters on tracks kernel_trackevent_{thread,process,cpu,custom}_{slice,counter}, one per
-- owner (the writing thread; scope_tgid's process; scope_cpu's CPU; another scope_ field's
-- number), tracepoint and track name (track_name, else the event's name), their dimensions in
-- that order. kernel_trackevent_format_error counts 4: the type 'X', the end without slice_name
-- (its track made all the same), the scope_tgid event without its scope (no track), the counter
-- without a value. Every event keeps its ftrace_event row.
SELECT id, name, type FROM track ORDER BY id;
SELECT id, utid FROM thread_track ORDER BY id;
SELECT id, upid FROM process_track ORDER BY id;
SELECT id FROM counter_track ORDER BY id;
SELECT t.id, a.key, a.int_value, a.string_value FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id, a.id;
SELECT ts, dur, track_id, category, name, depth, parent_id FROM slice ORDER BY id;
SELECT ts, track_id, value FROM counter ORDER BY id;
SELECT utid, tid, upid FROM thread ORDER BY utid;
SELECT upid, pid FROM process ORDER BY upid;
SELECT ts, name, utid FROM ftrace_event ORDER BY id;
SELECT name, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' ORDER BY name;
