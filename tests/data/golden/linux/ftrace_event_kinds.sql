-- Every ftrace event kind of Perfetto's schema (cgroup, net, KVM, GPU, device, vendor and the
-- rest), one event each with every field set (numbers from the field number, strings and bytes
-- "name_number"): each is an ftrace_event row named by its kind, its fields as args by the
-- schema's types (bytes as strings), identical arg sets shared, as trace_processor_shell v58.2
-- imports them (checked with scripts/oracle_diff.sh). Perfetto also gives some of these kinds
-- slices, counters and tracks (Android vendors' drivers, thermal, hotplug, networking...) and
-- stats, which trak does not make (docs/processor.md).
SELECT ts, name, utid, ucpu, common_flags FROM ftrace_event ORDER BY ts;
SELECT e.ts, a.key, a.value_type, a.int_value, a.string_value FROM ftrace_event e JOIN args a USING (arg_set_id) ORDER BY e.ts, a.id;
SELECT count(DISTINCT arg_set_id) AS sets FROM ftrace_event;
