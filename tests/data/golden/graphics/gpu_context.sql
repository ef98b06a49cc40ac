-- trace: golden/graphics/gpu_render_stages.pbtxt
-- The graphics contexts render stages name (std.gpu.context). The same as trace_processor_shell
-- v58.2.
INCLUDE PERFETTO MODULE std.gpu.context; SELECT context_id, pid, api FROM gpu_context ORDER BY context_id;
