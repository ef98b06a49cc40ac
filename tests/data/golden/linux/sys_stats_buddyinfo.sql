-- SysStats buddy_info: each order of a node's zone is a counter on its own buddyinfo track, named
-- mem.buddyinfo[<node>][<zone>][<chunk> kB] (chunk: 2^order pages of SystemInfo's page size),
-- made after num_forks' as Perfetto reads a packet; dimensions buddyinfo_node, buddyinfo_zone,
-- buddyinfo_chunk_size_kb. trace_processor_shell v58.2's answers.
SELECT t.id, t.name, t.type, t.unit, c.ts, c.value FROM counter_track t JOIN counter c ON c.track_id = t.id ORDER BY t.id, c.ts;
SELECT t.id, a.key, a.value_type, a.int_value, a.string_value FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id ORDER BY t.id, a.id;
SELECT name, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' ORDER BY name;
