-- ProcessTree packets into the thread and process tables; checked against Perfetto's
-- trace_processor_shell.
SELECT utid, tid, name, upid, is_main_thread FROM thread ORDER BY utid;
SELECT upid, pid, name, cmdline, parent_upid, uid, android_appid, android_user_id
FROM process ORDER BY upid;
