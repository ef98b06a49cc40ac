-- Expected output: trace_processor_shell v58.2 on this trace.
SELECT * FROM package_list ORDER BY id;
SELECT name, idx, severity, source, value FROM stats WHERE name LIKE 'packages_list%';
INCLUDE PERFETTO MODULE android.process_metadata; SELECT * FROM android_process_metadata;
INCLUDE PERFETTO MODULE android.package_lookup; SELECT uid, android_package_lookup(uid) AS package FROM (SELECT 0 AS uid UNION ALL SELECT 1000 UNION ALL SELECT 2000 UNION ALL SELECT 10100 UNION ALL SELECT 1010100 UNION ALL SELECT 10500 UNION ALL SELECT 10003 UNION ALL SELECT 55555 UNION ALL SELECT 1099999 UNION ALL SELECT -1 UNION ALL SELECT NULL);
