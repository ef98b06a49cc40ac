SELECT id, ts, upid, heap_name, callsite_id, count, size FROM heap_profile_allocation ORDER BY id;
SELECT id, ts, ts_end, dur, upid, heap_name FROM heap_profile ORDER BY id;
SELECT upid, pid, name FROM process WHERE pid IN (10, 11) ORDER BY upid;
SELECT id, build_id, start, end, name FROM stack_profile_mapping ORDER BY id;
SELECT id, name, mapping, rel_pc FROM stack_profile_frame ORDER BY id;
SELECT id, depth, parent_id, frame_id FROM stack_profile_callsite ORDER BY id;
SELECT * FROM trace_bounds;
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
INCLUDE PERFETTO MODULE android.memory.heap_profile.intervals;
SELECT id, upid, heap_name, ts, dur, retained, allocated, delta FROM _android_heap_profile_intervals
ORDER BY id;
