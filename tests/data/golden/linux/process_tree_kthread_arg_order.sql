-- The arg sets of processes are numbered in the slot order of Perfetto's map of them by upid,
-- not by upid. trace_processor_shell v58.2's answers.
SELECT upid, pid, name, arg_set_id, extract_arg(arg_set_id, 'is_kthread') AS kthread FROM process ORDER BY upid;
SELECT arg_set_id, key, value_type, int_value FROM args ORDER BY id;
