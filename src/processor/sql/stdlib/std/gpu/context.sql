-- std.gpu.context: the graphics contexts (GL contexts, VkDevices, CUDA contexts, ...) GPU render
-- stages name, as the importer records them (import/proto/gpu_stages.c), one row per context.

CREATE PERFETTO VIEW gpu_context(
  -- The id of the row.
  id ID,
  -- The graphics context handle.
  context_id LONG,
  -- Process ID associated with this context.
  pid LONG,
  -- Graphics API type (OPEN_GL, VULKAN, OPEN_CL, CUDA, HIP, or UNDEFINED).
  api STRING
) AS
SELECT id, context_id, pid, api FROM __intrinsic_gpu_context;
