-- Expected output: trace_processor_shell v58.2 on this trace.
SELECT id, ts, utid, prio, log_source, tag, msg,
  (SELECT group_concat(key || '=' || display_value, ';') FROM args a
   WHERE a.arg_set_id = l.arg_set_id) AS args
FROM logs l ORDER BY id;
SELECT utid, tid, upid FROM thread ORDER BY utid;
SELECT name, idx, severity, source, value FROM stats WHERE name LIKE 'systemd_journal%';
SELECT count(*) AS android FROM android_logs;
INCLUDE PERFETTO MODULE linux.systemd_journald; SELECT * FROM linux_systemd_journald_logs ORDER BY id;
