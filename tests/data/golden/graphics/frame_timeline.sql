-- FrameTimelineEvent: the expected and actual frame timeline tables (every column), the
-- tracks' lanes and groups, the flows from surface frames to display frames, each slice's args
-- in order, the processes, the stats. The same as trace_processor_shell v58.2.
SELECT * FROM expected_frame_timeline_slice ORDER BY id;
SELECT * FROM actual_frame_timeline_slice ORDER BY id;
SELECT t.id, t.name, t.type, p.upid, t.track_group_id, extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') AS lane FROM track t JOIN process_track p USING (id) ORDER BY t.id;
SELECT o.name AS out_name, o.ts AS out_ts, i.name AS in_name, i.ts AS in_ts FROM flow f JOIN slice o ON f.slice_out = o.id JOIN slice i ON f.slice_in = i.id ORDER BY f.id;
SELECT s.id, a.key, a.value_type, a.display_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.id, a.id;
SELECT upid, pid, name FROM process ORDER BY upid;
SELECT utid, tid, upid FROM thread ORDER BY utid;
SELECT name, value FROM stats WHERE name LIKE 'frame_timeline%' OR name = 'trace_sorter_negative_timestamp_dropped' ORDER BY name;
