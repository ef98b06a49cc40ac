-- clock_set_rate, clock_enable and clock_disable from protobuf: each event's raw row, and its
-- state on the clock's counter track, "<name> Frequency" (type clock_frequency) or "<name>
-- State" (type clock_state), dimension linux_device, as systrace text gives them too. The same
-- as trace_processor_shell v58.2.
SELECT t.name, t.type, c.ts, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.id;
SELECT t.name, a.key, a.string_value FROM counter_track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id, a.id;
SELECT name, count(*) FROM ftrace_event GROUP BY name ORDER BY name;
