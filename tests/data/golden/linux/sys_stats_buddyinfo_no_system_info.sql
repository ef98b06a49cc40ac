-- SysStats buddy_info with no SystemInfo: chunk sizes of 0 kB, one track a zone, its counter
-- rows in the packet's order. trace_processor_shell v58.2's answers.
SELECT c.id, t.id AS track, t.name, extract_arg(t.dimension_arg_set_id, 'buddyinfo_node') AS node, extract_arg(t.dimension_arg_set_id, 'buddyinfo_chunk_size_kb') AS kb, c.ts, c.value FROM counter_track t JOIN counter c ON c.track_id = t.id ORDER BY c.id;
