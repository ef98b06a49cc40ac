-- PowerRails sessions: the same index and name in two sessions are two tracks (dimension
-- session_uuid); rails Perfetto knows by name get "power.rails.<friendly>" names; an index over
-- 256 is skipped and a value of an index no descriptor of its session names is counted
-- (power_rail_unknown_index); a later descriptor of an index takes its later values. The same
-- as trace_processor_shell v58.2.
SELECT t.name, c.ts, c.value, extract_arg(t.dimension_arg_set_id, 'session_uuid') AS session_uuid FROM counter c JOIN counter_track t ON t.id = c.track_id ORDER BY t.id, c.ts;
SELECT name, idx, severity, source, value FROM stats WHERE value > 0 ORDER BY name;
INCLUDE PERFETTO MODULE android.power_rails; SELECT power_rail_name, raw_power_rail_name, friendly_name, subsystem_name, machine_id FROM android_power_rails_metadata ORDER BY track_id;
