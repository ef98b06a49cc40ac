-- trace: golden/track_event/streaming_profile.pbtxt
-- Chrome's CPU profile samples in the stack_sample tables (source 'chrome', no execution
-- context or session) and in stacks.cpu_profiling's samples and summary tree. The same as
-- trace_processor_shell v58.2.
INCLUDE PERFETTO MODULE stacks.cpu_profiling;
select * from stack_sample order by id;
select * from stack_sample_task_context order by id;
select * from stack_sample_execution_context order by id;
select * from stack_sample_session;
select * from cpu_profiling_samples;
select * from cpu_profiling_summary_tree;
