-- wakeup_source_activate / _deactivate (ftrace): a wakeup source held is a slice
-- "Wakelock(<name>)" (cut at 31 bytes) on its wakesource_wakelock track (dimension
-- wakelock_event), from its first activation to the deactivation that balances them all; extra
-- deactivations, and those of a source never activated, make nothing; one never released stays
-- open. The same as trace_processor_shell v58.2.
SELECT s.ts, s.dur, s.name, t.name AS track, t.type FROM slice s JOIN track t ON t.id = s.track_id ORDER BY s.ts;
SELECT t.name, a.key, a.string_value FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id;
SELECT name, count(*) FROM ftrace_event GROUP BY name ORDER BY name;
