-- Remote machines' timestamps through RemoteClockSync (see the trace's comment). The same as
-- trace_processor_shell v58.2 (its clock_sync_cache_miss and invalid_clock_snapshots counts
-- left out: trak counts neither for these).
SELECT t.name, c.ts, c.value, t.machine_id FROM counter c JOIN counter_track t ON t.id = c.track_id ORDER BY t.machine_id, c.ts;
SELECT name, severity, source, value FROM stats WHERE value <> 0 AND name NOT IN ('clock_sync_cache_miss', 'invalid_clock_snapshots') AND name NOT LIKE '%duration_ns' ORDER BY name;
