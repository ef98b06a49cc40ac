-- linux.systemd_journald: the entries of the systemd journal that Perfetto's
-- linux.systemd_journald data source recorded, with the journal fields the
-- logs table keeps as args spread into columns.

-- The journal's entries (the logs rows of source 'systemd_journald'), in the
-- logs table's order, which need not be that of their timestamps.
CREATE PERFETTO VIEW linux_systemd_journald_logs(
  -- The entry's row in the logs table.
  id ID,
  -- When it was written.
  ts TIMESTAMP,
  -- The thread that wrote it (NULL when the journal named no process).
  utid JOINID(thread.id),
  -- Its syslog priority: 0 emergency to 7 debug.
  prio LONG,
  -- Its SYSLOG_IDENTIFIER (NULL: none).
  tag STRING,
  -- Its text.
  msg STRING,
  -- The writer's user id (NULL: not recorded).
  uid LONG,
  -- The writer's process name as the kernel knows it (NULL: not recorded).
  comm STRING,
  -- The systemd unit of the writer (NULL: not recorded).
  systemd_unit STRING,
  -- The machine's host name (NULL: not recorded).
  hostname STRING,
  -- How the entry reached journald: journal, syslog, stdout, kernel, ...
  -- (NULL: not recorded).
  transport STRING
) AS
SELECT l.id, l.ts, l.utid, l.prio, l.tag, l.msg,
  CAST(extract_arg(l.arg_set_id, 'uid') AS INTEGER) AS uid,
  extract_arg(l.arg_set_id, 'comm') AS comm,
  extract_arg(l.arg_set_id, 'systemd_unit') AS systemd_unit,
  extract_arg(l.arg_set_id, 'hostname') AS hostname,
  extract_arg(l.arg_set_id, 'transport') AS transport
FROM logs AS l
WHERE l.log_source = 'systemd_journald';
