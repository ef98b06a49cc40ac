SELECT name, str_value, trace_id FROM metadata WHERE name = 'trace_trigger';
SELECT name, value, machine_id, trace_id FROM stats WHERE name GLOB 'traced_clone_*' ORDER BY name;
