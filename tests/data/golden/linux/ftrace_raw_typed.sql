-- Perfetto's answer (trace_processor_shell v58.2 on the same trace): kmem, block, timer and ext4
-- events and a legacy generic event (named by its event_name, its fields by name) are each an
-- ftrace_event row with their fields as args, in the order the event holds them, typed by the
-- schema (uint64 fields as uint, int32 as int).
SELECT e.ts, e.name, e.cpu, e.utid,
  (SELECT group_concat(key || '=' || coalesce(string_value, int_value) || ':' || value_type, ',')
   FROM args a WHERE a.arg_set_id = e.arg_set_id) AS args
FROM ftrace_event e ORDER BY e.ts;
