-- trace_processor_shell v58.2's answers (checked with scripts/oracle_diff.sh): the trace
-- config's text names perfetto_cmd's fields (enable_extra_guardrails, statsd_metadata,
-- statsd_logging) rather than their numbers; meminfo tracks are in bytes, vmstat's have no
-- unit; a process listed again with another parent keeps its first one and counts
-- process_tracker_parent_pid_changed; the clock snapshot's 5 clocks other than BOOTTIME are
-- each a clock_sync_cache_miss.
SELECT str_value FROM metadata WHERE name = 'trace_config_pbtxt';
SELECT id, name, type, unit FROM counter_track ORDER BY id;
SELECT p.pid, p.name, pp.pid AS parent_pid FROM process p LEFT JOIN process pp ON p.parent_upid = pp.upid ORDER BY p.upid;
SELECT name, idx, severity, source, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' ORDER BY name, idx;
