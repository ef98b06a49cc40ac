-- GPU compute dispatches: a render stage's interned kernel (kernel_name, kernel_demangled_name,
-- arch, its typed args) and launch (grid and workgroup sizes, typed args) as args after the
-- stage's. The same as trace_processor_shell v58.2.
-- trace: graphics/gpu_compute_kernels.pb
SELECT s.ts, s.name, a.flat_key, a.key, a.value_type, a.display_value FROM gpu_slice s JOIN args a USING (arg_set_id) WHERE a.key NOT IN ('context_id', 'render_target', 'render_target_name', 'render_pass', 'render_pass_name', 'render_subpasses', 'command_buffer', 'command_buffer_name', 'submission_id', 'hw_queue_id', 'upid') ORDER BY s.ts, a.id;
