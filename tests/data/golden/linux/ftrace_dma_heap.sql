-- dma_heap_stat: total_allocated on the global "mem.dma_heap" counter (type android_dma_heap),
-- len on the writer's "mem.dma_heap_change" (android_dma_heap_change, arg inode), each buffer a
-- slice "<len / 1024> kB" on a lane of "mem.dma_buffer" (android_dma_allocations) from
-- allocation to free, a freed lane taken by the next buffer. The same as
-- trace_processor_shell v58.2.
SELECT t.name, t.type, c.ts, c.value, extract_arg(c.arg_set_id, 'inode') AS inode FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts, t.id;
SELECT s.ts, s.dur, s.name, s.track_id, t.name AS track, t.type FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
SELECT t.name, th.tid FROM thread_counter_track t JOIN thread th USING (utid) ORDER BY t.id;
