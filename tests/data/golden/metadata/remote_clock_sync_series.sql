-- Remote machines with several syncs each: one going back on machine 1, in order (with a tie)
-- on machine 2 (see the trace's comment). The same as trace_processor_shell v58.2 (its
-- clock_sync_cache_miss count left out: trak counts its own cache's misses).
SELECT t.name, c.ts, c.value, t.machine_id FROM counter c JOIN counter_track t ON t.id = c.track_id ORDER BY t.machine_id, c.ts, c.value;
SELECT name, severity, source, value FROM stats WHERE value <> 0 AND name <> 'clock_sync_cache_miss' AND name NOT LIKE '%duration_ns' ORDER BY name;
