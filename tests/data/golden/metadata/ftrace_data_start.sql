-- ftrace_latest_data_start_ns from ftrace bundles' headers, per machine; checked against
-- Perfetto's trace_processor_shell.
SELECT name, key_type, int_value, machine_id, trace_id FROM metadata
WHERE name = 'ftrace_latest_data_start_ns' ORDER BY machine_id;
SELECT extract_metadata('ftrace_latest_data_start_ns') AS host,
  extract_metadata_for_machine(1, 'ftrace_latest_data_start_ns') AS remote;
