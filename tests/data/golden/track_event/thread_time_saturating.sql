-- Thread time and instruction count deltas, saturating, and absolute values that do not move the
-- sequence's base: the same as trace_processor_shell v58.2.
select id, ts, name, thread_ts, thread_dur, thread_instruction_count, thread_instruction_delta from slice order by id;
