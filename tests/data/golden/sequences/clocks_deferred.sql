-- Checked against Perfetto's trace_processor_shell (same CSV).
SELECT ts, name FROM slice ORDER BY ts, name;
SELECT name, severity, value FROM stats WHERE name LIKE 'clock_sync_failure%' AND value > 0 ORDER BY name;
