-- trace_processor_shell v58.2's answers: every arg set's number, and who holds it.
SELECT * FROM args ORDER BY id;
SELECT id, ts, name, cpu, arg_set_id FROM ftrace_event ORDER BY id;
SELECT id, ts, dur, name, arg_set_id FROM slice ORDER BY id;
SELECT id, name, type, dimension_arg_set_id, source_arg_set_id FROM track ORDER BY id;
SELECT upid, pid, arg_set_id FROM process ORDER BY upid;
