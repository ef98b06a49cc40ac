-- BatteryCounters (TracePacket 38, linux.sysfs_power): a battery_counter track per battery and
-- gauge (dimensions battery_name, NULL without a name, and counter_name), named
-- "batt.<gauge>" or "batt.<battery>.<gauge>"; the charge from energy and voltage when no charge
-- is given (integer division: 333333), its track made even when the voltage is 0 and no value
-- can be; the power in mW from current and voltage, positive while discharging. The same as
-- trace_processor_shell v58.2.
SELECT t.id, t.name, t.type, c.ts, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY t.id, c.ts;
SELECT t.name, a.key, a.value_type, a.string_value FROM counter_track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id, a.id;
SELECT name, unit FROM counter_track ORDER BY id;
