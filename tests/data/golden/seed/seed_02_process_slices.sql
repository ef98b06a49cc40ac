-- trace: seed/02_process_slices.pbtxt
SELECT id, ts, dur, track_id, name, depth, parent_id FROM slice ORDER BY id;
SELECT pt.id, pt.name, pt.type, pt.parent_id, p.pid, p.name AS process
FROM process_track pt JOIN process p USING (upid) ORDER BY pt.id;
