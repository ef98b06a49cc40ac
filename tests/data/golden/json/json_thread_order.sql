-- trace: golden/json/json_thread_order.json
-- Checked against Perfetto's trace_processor_shell (v58.2): threads and processes numbered in
-- the order of their earliest events (timestamp, then file order; a metadata event without ts
-- at 0), a process's main thread right after it.
SELECT utid, tid, upid, name FROM thread ORDER BY utid;
SELECT upid, pid, name FROM process ORDER BY upid;
SELECT t.id, t.type, extract_arg(t.dimension_arg_set_id, 'utid') AS utid,
       extract_arg(t.dimension_arg_set_id, 'upid') AS upid FROM track t ORDER BY t.id;
