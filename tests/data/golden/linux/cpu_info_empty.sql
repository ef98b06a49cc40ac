-- options: --allow-empty
-- A CpuInfo packet without CPUs (a recorder that could not read /proc/cpuinfo): no cpu row,
-- cpu_info_empty counted (severity error, source analysis) and logged. The same as
-- trace_processor_shell v58.2.
SELECT name, severity, source, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns';
SELECT count(*) AS cpus FROM cpu;
SELECT ts, byte_offset, severity, name, arg_set_id FROM _trace_import_logs;
