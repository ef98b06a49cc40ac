-- trace: systrace/device_counters.systrace
-- Clock, thermal-zone and cooling-device lines of systrace text as trace_processor_shell v58.2
-- imports them (answers written down from it, checked with scripts/oracle_diff.sh):
-- clock_set_rate a counter on "<clock> Frequency" (type clock_frequency), clock_enable and
-- clock_disable on "<clock> State" (clock_state), each clock named by the line's bare word (the
-- arg "name"; an explicit name= after it does not replace it) and its state read as a uint32
-- (-1 is 4294967295); thermal_temperature's temp on "<zone> Temperature"
-- (thermal_temperature), cdev_update's target on "<type> Cooling Device"
-- (cooling_device_counter). A temp or target that does not parse leaves its track made and
-- empty; a clock state that does not parse makes none.
SELECT t.id, t.name, t.type, t.unit, a.key, a.string_value FROM counter_track t LEFT JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id, a.id;
SELECT c.ts, t.name, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts, t.name;
-- No stat counts the lines that do not parse (trak's own systrace_event_unparsed does, 3).
SELECT name, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' AND name <> 'systrace_event_unparsed' ORDER BY name;
