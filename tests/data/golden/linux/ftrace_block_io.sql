-- trace_processor_shell v58.2's answers (checked with scripts/oracle_diff.sh): block_io_start
-- begins a slice "block_io" (no category) on its device's track (type block_io, no name,
-- dimension block_device as an int, listed in counter_track), arg sector (uint);
-- block_io_done ends the device's innermost open slice whatever its sector, its sector
-- replacing the begin's (slice 0 began at sector 2048, its done said 4096); a done with nothing
-- open still makes the track (id 3) and is dropped without a stat (trak's slice_end_unmatched
-- counts only track events' ends); block_rq_issue/_complete make no slices; the nonzero stats
-- are Perfetto's (clock_sync_cache_miss 2: BOOTTIME bridged to a trace without a snapshot).
SELECT s.id, s.ts, s.dur, s.name, s.category, s.depth, s.parent_id, s.track_id, extract_arg(s.arg_set_id, 'sector') AS sector FROM slice s ORDER BY s.id;
SELECT id, name, type, extract_arg(dimension_arg_set_id, 'block_device') AS dev, extract_arg(dimension_arg_set_id, 'cpu') AS cpu FROM track ORDER BY id;
SELECT id, name, type FROM counter_track ORDER BY id;
SELECT s.id, a.key, a.flat_key, a.value_type, a.int_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.id, a.key;
SELECT d.key, d.value_type, d.int_value FROM track t JOIN args d ON d.arg_set_id = t.dimension_arg_set_id WHERE t.type = 'block_io' ORDER BY t.id;
SELECT name, count(*) AS n FROM ftrace_event GROUP BY name ORDER BY name;
SELECT name, value FROM stats WHERE name = 'misplaced_end_event';
SELECT name, idx, severity, source, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' ORDER BY name, idx;
