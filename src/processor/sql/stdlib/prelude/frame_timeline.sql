-- prelude.frame_timeline: Perfetto's tables of SurfaceFlinger's frame timeline, over the slices
-- import/proto/frame_timeline.c makes on each process's "Expected Timeline" and "Actual
-- Timeline" tracks: a frame's predicted span (expected_frame_timeline_slice) and its actual
-- span with the verdict (actual_frame_timeline_slice), each column an arg of the slice.

-- A display frame's (SurfaceFlinger's) or surface frame's (an app layer's) expected timeline:
-- its tokens (surface_frame_token NULL for a display frame), process and layer.
CREATE PERFETTO VIEW expected_frame_timeline_slice(
  id ID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id), category STRING,
  name STRING, depth LONG, parent_id JOINID(frame_slice.id), arg_set_id LONG,
  display_frame_token LONG, surface_frame_token LONG, upid JOINID(process.id),
  layer_name STRING
) AS
SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, s.parent_id, s.arg_set_id,
  extract_arg(s.arg_set_id, 'Display frame token') AS display_frame_token,
  extract_arg(s.arg_set_id, 'Surface frame token') AS surface_frame_token,
  t.upid,
  extract_arg(s.arg_set_id, 'Layer name') AS layer_name
FROM slice AS s
JOIN __intrinsic_track AS t ON s.track_id = t.id
WHERE t.type = 'android_expected_frame_timeline'
ORDER BY s.id;

-- A display or surface frame's actual timeline and how it went: present type, whether it
-- finished on time and used GPU composition, its jank types, severity, tags and score, the
-- prediction's state, and SurfaceFlinger's latch figures.
CREATE PERFETTO VIEW actual_frame_timeline_slice(
  id ID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id), category STRING,
  name STRING, depth LONG, parent_id JOINID(frame_slice.id), arg_set_id LONG,
  display_frame_token LONG, surface_frame_token LONG, upid JOINID(process.id),
  layer_name STRING, present_type STRING, on_time_finish LONG, gpu_composition LONG,
  jank_type STRING, jank_severity_type STRING, prediction_type STRING, jank_tag STRING,
  jank_tag_experimental STRING, jank_score DOUBLE, latched_unsignaled_count LONG,
  addressable_unsignaled_latch_count LONG, latched_fence_state STRING
) AS
SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, s.parent_id, s.arg_set_id,
  extract_arg(s.arg_set_id, 'Display frame token') AS display_frame_token,
  extract_arg(s.arg_set_id, 'Surface frame token') AS surface_frame_token,
  t.upid,
  extract_arg(s.arg_set_id, 'Layer name') AS layer_name,
  extract_arg(s.arg_set_id, 'Present type') AS present_type,
  extract_arg(s.arg_set_id, 'On time finish') AS on_time_finish,
  extract_arg(s.arg_set_id, 'GPU composition') AS gpu_composition,
  extract_arg(s.arg_set_id, 'Jank type') AS jank_type,
  extract_arg(s.arg_set_id, 'Jank severity type') AS jank_severity_type,
  extract_arg(s.arg_set_id, 'Prediction type') AS prediction_type,
  extract_arg(s.arg_set_id, 'Jank tag') AS jank_tag,
  extract_arg(s.arg_set_id, 'Jank tag (experimental)') AS jank_tag_experimental,
  extract_arg(s.arg_set_id, 'Jank Severity Score') AS jank_score,
  extract_arg(s.arg_set_id, 'Latched unsignaled count') AS latched_unsignaled_count,
  extract_arg(s.arg_set_id, 'Addressable unsignaled latch count')
    AS addressable_unsignaled_latch_count,
  extract_arg(s.arg_set_id, 'Latched fence state') AS latched_fence_state
FROM slice AS s
JOIN __intrinsic_track AS t ON s.track_id = t.id
WHERE t.type = 'android_actual_frame_timeline'
ORDER BY s.id;
