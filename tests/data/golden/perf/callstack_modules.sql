-- callstacks.stack_profile, linux.perf.samples, stacks.cpu_profiling and stacks.symbolization_candidates
-- over perf samples: each sampled stack's functions as a tree with self and cumulative counts,
-- C++ names demangled, nameless frames 'unknown', the tracepoint session's samples left out
-- of the CPU profile; the same as trace_processor_shell v58.2.
INCLUDE PERFETTO MODULE linux.perf.samples;
INCLUDE PERFETTO MODULE stacks.cpu_profiling;
INCLUDE PERFETTO MODULE stacks.symbolization_candidates;
SELECT * FROM linux_perf_samples_summary_tree ORDER BY id;
SELECT * FROM cpu_profiling_samples ORDER BY ts, id;
SELECT * FROM cpu_profiling_summary_tree ORDER BY id;
SELECT * FROM _callstack_spc_forest ORDER BY id;
SELECT * FROM _stacks_symbolization_candidates ORDER BY upid, build_id, rel_pc;
SELECT * FROM _callstacks_for_callsites_weighted!((SELECT callsite_id, 2.5 AS value FROM perf_sample)) ORDER BY id;
