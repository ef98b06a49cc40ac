-- FrameTimelineEvent starts with enum values out of range (defaults kept, each counted) and a
-- negative pid. The same as trace_processor_shell v58.2.
-- trace: graphics/frame_timeline_enums.pb
SELECT id, ts, dur, name, upid, present_type, prediction_type, extract_arg(arg_set_id, 'Present type (experimental)') AS present_type_experimental FROM actual_frame_timeline_slice ORDER BY id;
SELECT id, ts, dur, name, upid, display_frame_token FROM expected_frame_timeline_slice ORDER BY id;
SELECT upid, pid FROM process ORDER BY upid;
SELECT name, value FROM stats WHERE name LIKE 'frame_timeline%' ORDER BY name;
