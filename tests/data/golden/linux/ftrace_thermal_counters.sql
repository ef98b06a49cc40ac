-- thermal_temperature and cdev_update from protobuf: temp on "<thermal_zone> Temperature" and
-- target on "<type> Cooling Device" (the tracks systrace text's lines feed too, with their
-- dimensions), beside each event's ftrace_event row; the same as trace_processor_shell v58.2
-- (scripts/oracle_diff.sh), arg set ids included.
SELECT t.id, t.name, t.type, extract_arg(t.dimension_arg_set_id, 'thermal_zone') AS zone, extract_arg(t.dimension_arg_set_id, 'cooling_device') AS cdev FROM track t ORDER BY t.id;
SELECT c.ts, c.value, c.track_id FROM counter c ORDER BY c.ts;
SELECT ts, name, arg_set_id FROM ftrace_event ORDER BY ts;
SELECT a.arg_set_id, a.key, a.int_value, a.string_value FROM args a ORDER BY a.id;
