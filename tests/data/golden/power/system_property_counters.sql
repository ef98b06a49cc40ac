-- AndroidSystemProperty (TracePacket 86): debug.tracing.battery_stats.* values share the
-- battery_stats tracks of atrace's battery_stats counters, screen_state ScreenState's; mcc,
-- mnc, desktop_mode_visible_tasks, battery_status (BatteryStatus) and plug_type (PlugType) are
-- sysprop_counter tracks (dimension sysprop_name); values that are not whole int32s and other
-- properties are skipped. The same as trace_processor_shell v58.2.
SELECT t.id, t.name, t.type, c.ts, c.value FROM counter c JOIN counter_track t ON t.id = c.track_id ORDER BY t.name, c.ts;
SELECT t.name, a.key, a.string_value FROM counter_track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id, a.id;
