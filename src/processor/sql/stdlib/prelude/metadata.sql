-- prelude.metadata: what is known about the trace as name/value rows (trace_uuid,
-- trace_type, trace_size_bytes), the import problems (`stats`, made by the
-- SQL layer) and their per-event log (_trace_import_logs).

CREATE PERFETTO VIEW metadata(
  id ID, name STRING, key_type STRING, int_value LONG, str_value STRING,
  machine_id JOINID(machine.id), trace_id LONG
) AS
SELECT id, name, key_type, int_value, str_value, machine_id, trace_id
FROM __intrinsic_metadata;

CREATE PERFETTO VIEW _trace_import_logs(
  id ID, trace_id LONG, ts TIMESTAMP, byte_offset LONG, severity STRING, name STRING,
  arg_set_id ARGSETID
) AS
SELECT logs.id, logs.trace_id, logs.ts, logs.byte_offset, keys.severity, keys.name,
  logs.arg_set_id
FROM __intrinsic_trace_import_logs AS logs
JOIN (SELECT DISTINCT key, severity, name FROM __intrinsic_stats) AS keys
  ON keys.key = logs.stat_key;
