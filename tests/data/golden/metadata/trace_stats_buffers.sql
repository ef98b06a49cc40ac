SELECT name, idx, severity, source, value, machine_id, trace_id FROM stats
WHERE name GLOB 'traced_buf_*' AND name NOT GLOB 'traced_buf_data_loss_*'
  AND (value > 0 OR name IN ('traced_buf_sequence_packet_loss',
    'traced_buf_incremental_sequences_dropped', 'traced_buf_chunks_relocated'))
ORDER BY name, idx;
SELECT name, idx, value FROM stats WHERE name GLOB 'traced_buf_data_loss_*' ORDER BY name, idx;
SELECT name, idx, severity, value FROM stats
WHERE name GLOB 'filter_*' OR name GLOB 'config_write_into_file_*'
  OR name = 'long_trace_mode_bytes_overwritten'
ORDER BY name, idx;
SELECT name, severity, source, machine_id, trace_id FROM stats
WHERE name IN ('parse_trace_duration_ns', 'trace_sorter_negative_timestamp_dropped',
  'traced_producers_seen', 'traced_clone_started_timestamp_ns') ORDER BY name;
