-- Test metric: frames as annotations, nested (a frame, its first half, an instant at its
-- start), a counter of frame durations, and a thread-scoped track with a source link.
INCLUDE frame_list;
CREATE VIEW frames_output AS SELECT name, ts, dur FROM frame_list ORDER BY ts;
CREATE VIEW frames_annotations AS
SELECT 'slice' AS track_type, 'Frames' AS track_name, ts, dur, 'frame' AS slice_name,
       NULL AS value, NULL AS utid, id AS source_slice_id FROM frame_list
UNION ALL SELECT 'slice', 'Frames', ts, dur / 2, 'first half', NULL, NULL, NULL FROM frame_list
UNION ALL SELECT 'slice', 'Frames', ts, 0, 'frame start', NULL, NULL, NULL FROM frame_list
UNION ALL SELECT 'slice', 'Main thread frames', ts, dur, name, NULL, utid, id FROM frame_list
UNION ALL SELECT 'counter', 'Frame duration', ts, NULL, NULL, dur, NULL, NULL FROM frame_list;
