-- StreamingProfilePacket into cpu_profile_stack_sample and the stack profile tables; checked
-- against Perfetto's trace_processor_shell.
SELECT s.id, s.ts, s.callsite_id, s.utid, s.process_priority, t.tid, c.depth, c.parent_id,
  f.name, f.rel_pc, m.name AS mname, m.build_id
FROM cpu_profile_stack_sample s JOIN thread t USING (utid)
JOIN stack_profile_callsite c ON c.id = s.callsite_id
JOIN stack_profile_frame f ON f.id = c.frame_id
JOIN stack_profile_mapping m ON m.id = f.mapping ORDER BY s.id;
SELECT * FROM stack_profile_callsite ORDER BY id;
SELECT name, value FROM stats WHERE value > 0 AND name LIKE 'stackprofile%' ORDER BY name;
SELECT * FROM trace_bounds;
SELECT ts, name FROM slice;
