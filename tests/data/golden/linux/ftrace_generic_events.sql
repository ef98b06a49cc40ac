-- trace: linux/ftrace_generic.pb
-- Self-describing ftrace events (FtraceEvent fields from 65536, described by the bundle's
-- generic_event_descriptors, written after the events they describe), as trace_processor_shell
-- v58.2 imports them (checked with scripts/oracle_diff.sh): an ftrace_event row named by the
-- descriptor, its fields as args by their types (bool as int, sint zigzag-decoded, a pointer
-- as uint); the first descriptor of a field number holds for the whole trace (the second
-- bundle's "renamed" is ignored). ftrace_generic_descriptor_errors counts 4: the event of field
-- 65540 (no descriptor, no row, no thread), field 9 of the event at 1300 (skipped), the
-- descriptor of a field numbered 40 and then its event at 1400 (no row).
SELECT ts, name, utid, ucpu, common_flags FROM ftrace_event ORDER BY ts;
SELECT e.ts, a.key, a.value_type, a.int_value, a.string_value FROM ftrace_event e JOIN args a USING (arg_set_id) ORDER BY e.ts, a.id;
SELECT count(DISTINCT arg_set_id) AS sets FROM ftrace_event;
SELECT utid, tid FROM thread ORDER BY utid;
SELECT name, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' ORDER BY name;
