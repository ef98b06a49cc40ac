-- prelude.metadata: what is known about the trace as name/value rows (trace_uuid,
-- trace_type, trace_size_bytes), the import problems (`stats`, made by the
-- SQL layer), their per-event log (_trace_import_logs) and the clock snapshots
-- (clock_snapshot).

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

-- Every clock of every clock snapshot, as Perfetto's clock_snapshot: the snapshot's instant in
-- trace time (ts) and in the clock (clock_value, ns), the clock's id in the trace and a builtin
-- clock's name.
CREATE PERFETTO VIEW clock_snapshot(
  id ID, ts TIMESTAMP, clock_id LONG, clock_name STRING, clock_value LONG, snapshot_id LONG,
  machine_id JOINID(machine.id)
) AS
SELECT id, ts, clock_id, clock_name, clock_value, snapshot_id, machine_id
FROM __intrinsic_clock_snapshot;
