-- options: --allow-empty
-- CpuInfo (TracePacket 67): a cpu row per CPU in the packet's order (processor, capacity; every
-- cluster 0 as one CPU lacks both a capacity and frequencies), a cpu_available_frequencies row
-- per listed frequency, and the cpu row's args: the ARM identifier's five fields, a boolean per
-- known feature bit (mte, mte3) and the raw bitmap; bits past those count
-- cpu_info_unknown_cpu_features once per CPU and log it. The same as trace_processor_shell v58.2.
SELECT * FROM cpu;
SELECT * FROM cpu_available_frequencies;
SELECT c.cpu, a.key, a.value_type, a.int_value FROM cpu c JOIN args a USING (arg_set_id) ORDER BY c.cpu, a.id;
SELECT name, idx, severity, source, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns';
SELECT ts, byte_offset, severity, name, arg_set_id FROM _trace_import_logs;
