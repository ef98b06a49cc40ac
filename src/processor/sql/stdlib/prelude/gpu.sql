-- prelude.gpu: Perfetto's GPU views over the tables and tracks import/proto/gpu.c fills: gpu
-- (the machine's GPUs: a GpuInfo packet's, and those GPU counters and frequencies name),
-- gpu_counter_track (counter tracks with a 'ugpu' dimension: GPU counters, gpufreq),
-- gpu_counter_group, gpu_track / gpu_slice (the GPU's slice tracks by type), and frame_slice
-- (Android's graphics frame events, import/proto/graphics_frames.c).

CREATE PERFETTO VIEW gpu(
  id ID, ugpu ID, gpu LONG, name STRING, vendor STRING, model STRING, architecture STRING,
  uuid STRING, pci_bdf STRING, machine_id JOINID(machine.id), arg_set_id ARGSETID
) AS
SELECT id, id AS ugpu, gpu, name, vendor, model, architecture, uuid, pci_bdf, machine_id,
  arg_set_id
FROM __intrinsic_gpu
WHERE gpu IS NOT NULL;

CREATE PERFETTO VIEW gpu_counter_group(
  id ID, group_id LONG, track_id JOINID(track.id), name STRING, description STRING
) AS
SELECT id, group_id, track_id, name, description FROM __intrinsic_gpu_counter_group;

CREATE PERFETTO VIEW gpu_counter_track(
  id ID(track.id), name STRING, type STRING, parent_id JOINID(track.id),
  source_arg_set_id ARGSETID, machine_id JOINID(machine.id), unit STRING, description STRING,
  ugpu LONG, gpu_id LONG
) AS
SELECT ct.id, ct.name, ct.type, ct.parent_id, ct.source_arg_set_id, ct.machine_id, ct.unit,
  ct.description, a.int_value AS ugpu, extract_arg(ct.dimension_arg_set_id, 'gpu') AS gpu_id
FROM counter_track AS ct
JOIN args AS a ON a.arg_set_id = ct.dimension_arg_set_id AND a.key = 'ugpu';

CREATE PERFETTO VIEW gpu_track(
  id ID(track.id), name STRING, type STRING, parent_id JOINID(track.id),
  source_arg_set_id ARGSETID, dimension_arg_set_id ARGSETID, machine_id JOINID(machine.id),
  scope STRING, description STRING, context_id LONG
) AS
SELECT id, name, type, parent_id, source_arg_set_id, dimension_arg_set_id, machine_id,
  type AS scope, extract_arg(source_arg_set_id, 'description') AS description,
  extract_arg(dimension_arg_set_id, 'context_id') AS context_id
FROM __intrinsic_track
WHERE type IN ('drm_vblank', 'drm_sched_ring', 'drm_fence', 'mali_mcu_state',
  'gpu_render_stage', 'vulkan_events', 'gpu_log', 'graphics_frame_event');

CREATE PERFETTO VIEW gpu_slice(
  id ID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id), category STRING,
  name STRING, depth LONG, parent_id JOINID(slice.id), arg_set_id LONG, context_id LONG,
  render_target LONG, render_target_name STRING, render_pass LONG, render_pass_name STRING,
  command_buffer LONG, command_buffer_name STRING, frame_id LONG, submission_id LONG,
  hw_queue_id LONG, upid JOINID(process.id), render_subpasses STRING,
  render_stage_category LONG
) AS
SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, s.parent_id, s.arg_set_id,
  extract_arg(s.arg_set_id, 'context_id') AS context_id,
  extract_arg(s.arg_set_id, 'render_target') AS render_target,
  extract_arg(s.arg_set_id, 'render_target_name') AS render_target_name,
  extract_arg(s.arg_set_id, 'render_pass') AS render_pass,
  extract_arg(s.arg_set_id, 'render_pass_name') AS render_pass_name,
  extract_arg(s.arg_set_id, 'command_buffer') AS command_buffer,
  extract_arg(s.arg_set_id, 'command_buffer_name') AS command_buffer_name,
  extract_arg(s.arg_set_id, 'frame_id') AS frame_id,
  extract_arg(s.arg_set_id, 'submission_id') AS submission_id,
  extract_arg(s.arg_set_id, 'hw_queue_id') AS hw_queue_id,
  extract_arg(s.arg_set_id, 'upid') AS upid,
  extract_arg(s.arg_set_id, 'render_subpasses') AS render_subpasses,
  extract_arg(s.arg_set_id, 'render_stage_category') AS render_stage_category
FROM slice AS s
JOIN __intrinsic_track AS t ON s.track_id = t.id
WHERE t.type IN ('gpu_render_stage', 'vulkan_events', 'gpu_log');

CREATE PERFETTO VIEW frame_slice(
  id ID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id), category STRING,
  name STRING, depth LONG, parent_id JOINID(frame_slice.id), arg_set_id LONG,
  layer_name STRING, frame_number LONG, queue_to_acquire_time LONG,
  acquire_to_latch_time LONG, latch_to_present_time LONG
) AS
SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, s.parent_id, s.arg_set_id,
  extract_arg(s.arg_set_id, 'layer_name') AS layer_name,
  extract_arg(s.arg_set_id, 'frame_number') AS frame_number,
  extract_arg(s.arg_set_id, 'queue_to_acquire_time') AS queue_to_acquire_time,
  extract_arg(s.arg_set_id, 'acquire_to_latch_time') AS acquire_to_latch_time,
  extract_arg(s.arg_set_id, 'latch_to_present_time') AS latch_to_present_time
FROM slice AS s
JOIN __intrinsic_track AS t ON s.track_id = t.id
WHERE t.type = 'graphics_frame_event';
