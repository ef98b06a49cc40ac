-- Perf counter tracks' names from PerfSampleDefaults: "cpu-clock" on a sequence without
-- defaults (and on a CPU first sampled after incremental state was cleared: the defaults went
-- with it), "unknown" for defaults without a timebase, modifiers in packed form; a sample with
-- no counts has its row and no counter. The same as trace_processor_shell v58.2.
select * from perf_sample order by id;
select id, name, perf_session_id, cpu, is_timebase from perf_counter_track order by id;
select id, ts, track_id, value from counter order by id;
select utid, tid, upid from thread order by utid;
