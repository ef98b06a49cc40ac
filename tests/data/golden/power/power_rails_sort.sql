-- PowerRails (TracePacket 40, android.power): each rail descriptor makes its counter track at
-- once (type power_rails, dimensions name and session_uuid, source args raw_name and
-- subsystem_name, named "power.<rail>_uws"); each energy value sorts by its own timestamp_ms
-- (CLOCK_BOOTTIME), else the packet's time, with the packet's time as arg packet_ts (values of
-- one packet land before and after an atrace counter of another). The same as
-- trace_processor_shell v58.2.
SELECT c.id, c.ts, extract_arg(c.arg_set_id, 'packet_ts') AS packet_ts, c.value, t.name, t.type FROM counter c JOIN counter_track t ON t.id = c.track_id ORDER BY c.id;
SELECT t.id, t.name, a.key, a.value_type, a.int_value, a.string_value FROM counter_track t JOIN args a ON a.arg_set_id IN (t.dimension_arg_set_id, t.source_arg_set_id) WHERE t.type = 'power_rails' ORDER BY t.id, a.id;
INCLUDE PERFETTO MODULE android.power_rails; SELECT * FROM android_power_rails_counters ORDER BY id;
INCLUDE PERFETTO MODULE android.power_rails; SELECT * FROM android_power_rails_metadata ORDER BY track_id;
