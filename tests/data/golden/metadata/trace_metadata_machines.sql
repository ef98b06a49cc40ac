SELECT name, str_value, int_value, machine_id, trace_id FROM metadata
WHERE machine_id IS NOT NULL ORDER BY name, machine_id;
SELECT extract_metadata('system_name'), extract_metadata_for_machine(1, 'system_name'),
  extract_metadata_for_machine(1, 'timezone_off_mins'), extract_metadata_for_machine(0, 'timezone_off_mins');
