SELECT name, key_type, int_value, str_value, machine_id, trace_id FROM metadata
WHERE name NOT IN ('trace_size_bytes') ORDER BY id;
