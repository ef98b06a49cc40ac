SELECT name, extract_arg(source_arg_set_id, 'has_first_packet_on_sequence') AS first FROM track ORDER BY id;
