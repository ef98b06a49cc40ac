INCLUDE PERFETTO MODULE traced.stats;
SELECT * FROM traced_clone_flush_latency;
SELECT * FROM traced_trigger_clone_flush_latency;
SELECT name, idx, value FROM stats WHERE name GLOB 'traced_*clone*' ORDER BY name, idx;
