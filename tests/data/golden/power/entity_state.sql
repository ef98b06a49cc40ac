-- EntityStateResidency (TracePacket 91, android.power): the entities' states named by index,
-- then each residency a counter on its entity_state track (dimensions entity_name and
-- state_name, named "Entity residency: <entity> is <state>"); a residency of no known state
-- is counted and drops the rest of its packet. The android.entity_state_residency module turns
-- them into ns and ratios. The same as trace_processor_shell v58.2.
SELECT t.id, t.name, c.ts, c.value FROM counter c JOIN counter_track t ON t.id = c.track_id ORDER BY c.id;
SELECT t.id, a.key, a.string_value FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id, a.id;
SELECT name, severity, source, value FROM stats WHERE value > 0 ORDER BY name;
INCLUDE PERFETTO MODULE android.entity_state_residency; SELECT * FROM android_entity_state_residency ORDER BY id;
