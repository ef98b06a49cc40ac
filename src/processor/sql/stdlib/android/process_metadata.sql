-- android.process_metadata: each process with its Android app: uid, user, the package it runs
-- (matched on package_list by uid and name) and whether it is a kernel task.

INCLUDE PERFETTO MODULE android.user_list;

-- The processes that are kernel tasks: pid 0, and the children of pid 0 and of kthreadd.
CREATE PERFETTO TABLE _android_kernel_tasks(
  -- The kernel task's process.
  upid LONG
) AS
SELECT p.upid
FROM process AS p
LEFT JOIN process AS parent ON parent.upid = p.parent_upid
WHERE p.pid = 0 OR parent.pid = 0 OR parent.name = 'kthreadd'
ORDER BY 1;

-- Whether a process is a kernel task (see _android_kernel_tasks).
CREATE PERFETTO FUNCTION android_is_kernel_task(
  -- The process.
  upid LONG
)
-- 1 for a kernel task, else 0.
RETURNS BOOL AS
SELECT EXISTS (SELECT 1 FROM _android_kernel_tasks WHERE upid = $upid);

-- The app id whose package an app id's process runs: SDK sandboxes (20000 to 29999) and
-- private compute processes (30000 to 39999) run for the app 10000 and 20000 below them.
CREATE PERFETTO FUNCTION _app_id_to_base_package(
  -- The process's app id (uid % 100000).
  app_id LONG
)
-- The app id of its package.
RETURNS LONG AS
SELECT CASE
  WHEN $app_id < 20000 THEN $app_id
  WHEN $app_id < 30000 THEN $app_id - 10000
  WHEN $app_id < 40000 THEN $app_id - 20000
  ELSE $app_id
END;

-- Each process with the Android app it belongs to. A process runs the package of its app id
-- when that id has one package; with several (a shared uid), the longest whose name begins
-- the process's. An isolated process (app id 90000 to 99999) runs the longest package whose
-- name begins the part of its name before ':'.
CREATE PERFETTO TABLE android_process_metadata(
  -- The process.
  upid JOINID(process.id),
  -- Its pid.
  pid LONG,
  -- Its name; its command line instead when the name is the kernel's 15-byte cut of it.
  process_name STRING,
  -- Its Android app id (uid % 100000).
  uid LONG,
  -- Its Android user (uid / 100000).
  user_id LONG,
  -- That user's type (android_user_list).
  user_type STRING,
  -- 1 when several packages share the app id, else NULL.
  shared_uid BOOL,
  -- The package it runs (NULL: none matched).
  package_name STRING,
  -- That package's version code.
  version_code LONG,
  -- Whether that package is debuggable.
  debuggable LONG,
  -- Whether the process is a kernel task.
  is_kernel_task BOOL
) AS
WITH procs AS (
  SELECT upid, pid, name, cmdline, android_appid, android_user_id,
    _app_id_to_base_package(android_appid) AS base_id
  FROM process
),
counts AS (SELECT uid, count(*) AS n FROM package_list GROUP BY uid),
matches AS (
  SELECT p.upid, pl.package_name, pl.version_code, pl.debuggable,
    row_number() OVER (PARTITION BY p.upid ORDER BY length(pl.package_name) DESC, pl.id) AS nth
  FROM procs AS p
  LEFT JOIN counts AS c ON c.uid = p.base_id
  JOIN package_list AS pl
    ON (pl.uid = p.base_id AND (c.n = 1 OR p.name GLOB pl.package_name || '*'))
    OR (p.base_id >= 90000 AND p.base_id < 100000
        AND str_split(p.name, ':', 0) GLOB pl.package_name || '*')
)
SELECT p.upid, p.pid,
  CASE
    WHEN length(p.name) = 15
      AND (p.cmdline IN ('zygote', 'zygote64', '<pre-initialized>')
           OR p.cmdline GLOB '*' || p.name) THEN p.cmdline
    ELSE p.name
  END AS process_name,
  p.android_appid AS uid,
  p.android_user_id AS user_id,
  u.type AS user_type,
  CASE WHEN c.n > 1 THEN 1 END AS shared_uid,
  m.package_name, m.version_code, m.debuggable,
  android_is_kernel_task(p.upid) AS is_kernel_task
FROM procs AS p
LEFT JOIN counts AS c ON c.uid = p.base_id
LEFT JOIN matches AS m ON m.upid = p.upid AND m.nth = 1
LEFT JOIN android_user_list AS u ON u.android_user_id = p.android_user_id
ORDER BY p.upid;
