-- Perfetto's diff test parser/parsing/tests.py:test_ftrace_abi_errors_skipped_zero_data_length
-- (query and answer from it; trace_processor_shell v58.2 gives the same): a zero-length ring
-- buffer record the recorder skipped is counted, as info, not refused.
select name, severity, value
from stats
where name = "ftrace_abi_errors_skipped_zero_data_length";
