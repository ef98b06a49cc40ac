SELECT id, name, type, parent_id,
  extract_arg(source_arg_set_id, 'has_first_packet_on_sequence') AS first_packet
FROM track ORDER BY id;
