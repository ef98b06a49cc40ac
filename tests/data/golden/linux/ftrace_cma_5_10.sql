-- CMA on a 5.10 kernel: cma_alloc_start begins "mm_cma_alloc" on the thread's track,
-- cma_alloc_info ends it with its figures as args (cma_nr_isolate_fail, cma_nr_migrate_fail,
-- cma_nr_test_fail too); migrate_range_info and cma_alloc_finish are ignored before 6.1. The
-- same as trace_processor_shell v58.2.
SELECT s.ts, s.dur, s.name, t.tid, a.key, a.int_value, a.string_value FROM slice s JOIN thread_track tt ON s.track_id = tt.id JOIN thread t USING (utid) LEFT JOIN args a ON a.arg_set_id = s.arg_set_id ORDER BY s.ts, a.key;
