-- trace_processor_shell v58.2's answers (checked with scripts/oracle_diff.sh). Perfetto numbers
-- arg sets in the one time order it parses events in: an event's raw row's set, then what its
-- parser makes (a track's dimension set when the track is made, a slice's set when it ends),
-- identical sets shared ("cpu" 0 of a CPU track's dimensions and of a workqueue slice's args).
SELECT id, ts, name, cpu, arg_set_id FROM ftrace_event ORDER BY id;
SELECT id, type, dimension_arg_set_id FROM track ORDER BY id;
SELECT id, ts, dur, name, arg_set_id FROM slice ORDER BY id;
SELECT arg_set_id, key, display_value FROM args ORDER BY id;
