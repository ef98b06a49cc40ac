-- std.traceinfo.trace: the metadata of each trace pivoted into one row
-- (_metadata_by_trace: trace_id, unique_session_name, trace_uuid, trace_type,
-- trace_size_bytes, trace_trigger, machines).

CREATE PERFETTO TABLE _metadata_by_trace(
  trace_id LONG, unique_session_name STRING, trace_uuid STRING, trace_type STRING,
  trace_size_bytes LONG, trace_trigger STRING, machines STRING
) AS
SELECT
  trace_id,
  max(IIF(name = 'unique_session_name', str_value, NULL)) AS unique_session_name,
  max(IIF(name = 'trace_uuid', str_value, NULL)) AS trace_uuid,
  max(IIF(name = 'trace_type', str_value, NULL)) AS trace_type,
  max(IIF(name = 'trace_size_bytes', int_value, NULL)) AS trace_size_bytes,
  max(IIF(name = 'trace_trigger', str_value, NULL)) AS trace_trigger,
  NULL AS machines
FROM metadata
WHERE trace_id IS NOT NULL
GROUP BY trace_id;
