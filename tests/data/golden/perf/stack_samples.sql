-- trace: golden/perf/callstack_modules.pbtxt
-- Perfetto's stack_sample tables over perf samples: the samples with a callstack, their task
-- and execution contexts numbered as the samples first name them, the sessions with their
-- timebase's unit (cpu-clock: ns, a tracepoint: count), the counters read at each sample.
-- The same as trace_processor_shell v58.2.
select * from stack_sample order by id;
select * from stack_sample_session order by id;
select * from stack_sample_task_context order by id;
select * from stack_sample_execution_context order by id;
select * from stack_sample_counter_track order by id;
select * from stack_sample_counter order by id;
select * from stack_sample_async_context;
