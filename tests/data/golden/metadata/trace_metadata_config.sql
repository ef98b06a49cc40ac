SELECT id, name, int_value, str_value, machine_id, trace_id FROM metadata
WHERE name NOT IN ('trace_size_bytes') ORDER BY id;
SELECT extract_metadata('trace_attribute.host'), extract_metadata_for_trace(0, 'trace_uuid'),
  extract_metadata('nothing') IS NULL;
