-- Checked against Perfetto's trace_processor_shell.
SELECT c.ts, t.name, t.type, c.value FROM counter c JOIN track t ON t.id = c.track_id ORDER BY c.ts, t.id;
SELECT id, name, type, parent_id, extract_arg(source_arg_set_id, 'has_first_packet_on_sequence') AS first_packet FROM track ORDER BY id;
SELECT ts, dur, name FROM slice ORDER BY ts;
