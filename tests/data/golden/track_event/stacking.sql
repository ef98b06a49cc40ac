SELECT id, ts, dur, name, depth, parent_id FROM slice ORDER BY id;
SELECT name, value FROM stats WHERE name IN ('misplaced_end_event', 'slice_end_unmatched') ORDER BY name;
