-- AndroidEnergyEstimationBreakdown (TracePacket 77, android.power): the consumer descriptor
-- (a consumer without an id is skipped), then each estimate a counter on its consumer's track
-- (type android_energy_estimation_breakdown, dimension energy_consumer_id, named by the
-- consumer, source args consumer_type, NULL when empty, and ordinal) and each app's share on a
-- per-uid track (dimensions energy_consumer_id and uid; a share without energy is skipped); an
-- estimate of no known consumer or without energy is counted. The same as
-- trace_processor_shell v58.2.
SELECT t.id, t.name, t.type, c.ts, c.value FROM counter c JOIN counter_track t ON t.id = c.track_id ORDER BY t.id, c.ts;
SELECT t.id, a.key, a.value_type, a.int_value, a.string_value FROM track t JOIN args a ON a.arg_set_id IN (t.dimension_arg_set_id, t.source_arg_set_id) ORDER BY t.id, a.id;
SELECT name, severity, source, value FROM stats WHERE value > 0 ORDER BY name;
