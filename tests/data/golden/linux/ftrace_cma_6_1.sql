-- CMA on a 6.1 kernel: cma_alloc_start begins "mm_cma_alloc" on the thread's track,
-- cma_alloc_finish ends it with args cma_name, cma_pfn, cma_req_pages and the figures of the
-- thread's mm_alloc_contig_migrate_range_info since its start (none: 0); cma_alloc_info is
-- ignored from 6.1. The same as trace_processor_shell v58.2.
SELECT s.ts, s.dur, s.name, t.tid, a.key, a.int_value, a.string_value FROM slice s JOIN thread_track tt ON s.track_id = tt.id JOIN thread t USING (utid) LEFT JOIN args a ON a.arg_set_id = s.arg_set_id ORDER BY s.ts, a.key;
