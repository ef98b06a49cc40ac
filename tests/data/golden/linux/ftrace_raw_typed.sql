-- Perfetto v58.2's answer as its sources give it (ftrace_parser.cc; not yet run through
-- trace_processor_shell, which was being built): kmem, block, timer and ext4
-- events and a legacy generic event (named by its event_name, its fields by name) are each an
-- ftrace_event row with their fields as args, in the order the event holds them, typed by the
-- schema (uint64 fields as uint, int32 as int).
SELECT e.ts, e.name, e.cpu, e.utid,
  (SELECT group_concat(key || '=' || coalesce(string_value, int_value) || ':' || value_type, ',')
   FROM args a WHERE a.arg_set_id = e.arg_set_id) AS args
FROM ftrace_event e WHERE e.name <> 'wide' ORDER BY e.ts;
-- A field named twice is one arg: the last value (of its own type), in the first's place.
SELECT count(*) AS n,
  min(a.id) = (SELECT id FROM args WHERE arg_set_id = e.arg_set_id AND key = 'f0') AS f0_first,
  (SELECT string_value || ':' || value_type FROM args WHERE arg_set_id = e.arg_set_id
   AND key = 'f0') AS f0,
  (SELECT int_value FROM args WHERE arg_set_id = e.arg_set_id AND key = 'f33') AS f33
FROM ftrace_event e JOIN args a USING (arg_set_id) WHERE e.name = 'wide';
