-- prelude.stack_samples: the CPU profilers' samples as Perfetto's stack_sample tables: each
-- sample with a callstack, the task (thread and process) and execution context (CPU and
-- privilege mode) it was taken in, its profiler session, and the counters read at it.
--   stack_sample: id, ts, source ('linux.perf', 'chrome'), task_context_id,
--     execution_context_id, callsite_id, session_id.
--   stack_sample_session: id, source, timebase_unit, cmdline.
--   stack_sample_task_context: id, upid, utid, async_context_id.
--   stack_sample_execution_context: id, ucpu, cpu_mode.
--   stack_sample_async_context: id, name, kind, parent_id (empty: trak imports no goroutines,
--     fibers or coroutines).
--   stack_sample_counter_track: perf_counter_track's columns with session_id.
--   stack_sample_counter: id (the counter's), stack_sample_id, track_id, value.
-- Contexts are numbered as the samples first name them (all samples, with a callstack or
-- not), and only those samples with a callstack use are listed. A sample's id is its row's in
-- its own table (perf_sample or cpu_profile_stack_sample): exact for a trace of one profiler;
-- a trace with both has the perf samples' contexts first. Plain SQLite views: the prelude is
-- read at every open, and these cost a third of what PERFETTO VIEWs (whose bodies are checked
-- by preparing them) would.

-- Every sample (with a callstack or not), its task and execution contexts' ids.
CREATE VIEW _trak_profiler_sample AS
SELECT s.*,
  dense_rank() OVER (ORDER BY s.task_first) - 1 AS task_context_id,
  iif(s.has_execution_context, dense_rank() OVER (ORDER BY s.exec_first) - 1, NULL)
    AS execution_context_id
FROM (
  SELECT *,
    min(place) OVER (PARTITION BY upid, utid) AS task_first,
    iif(has_execution_context,
      min(place) OVER (PARTITION BY has_execution_context, ucpu, cpu_mode), NULL) AS exec_first
  FROM (
    SELECT p.id, p.ts, 'linux.perf' AS source, p.utid, t.upid, c.id AS ucpu,
      nullif(p.cpu_mode, 'unknown') AS cpu_mode, p.callsite_id,
      p.perf_session_id AS session_id, p.id AS place, 1 AS has_execution_context
    FROM perf_sample AS p
    LEFT JOIN thread AS t USING (utid)
    LEFT JOIN cpu AS c ON c.cpu = p.cpu AND coalesce(c.machine_id, 0) = 0
    UNION ALL
    SELECT s.id, s.ts, 'chrome', s.utid, t.upid, NULL, NULL, s.callsite_id, NULL,
      (1 << 40) + s.id, 0
    FROM cpu_profile_stack_sample AS s
    LEFT JOIN thread AS t USING (utid)
  )
) AS s;

CREATE VIEW stack_sample(id, ts, source, task_context_id, execution_context_id, callsite_id,
  session_id) AS
SELECT id, ts, source, task_context_id, execution_context_id, callsite_id, session_id
FROM _trak_profiler_sample
WHERE callsite_id IS NOT NULL
ORDER BY place;

CREATE VIEW stack_sample_session(id, source, timebase_unit, cmdline) AS
SELECT id, source, timebase_unit, cmdline
FROM __intrinsic_profiler_session
WHERE id IN (SELECT perf_session_id FROM perf_sample WHERE callsite_id IS NOT NULL)
ORDER BY id;

CREATE VIEW stack_sample_task_context(id, upid, utid, async_context_id) AS
SELECT DISTINCT task_context_id, upid, utid, NULL
FROM _trak_profiler_sample
WHERE callsite_id IS NOT NULL
ORDER BY task_context_id;

CREATE VIEW stack_sample_execution_context(id, ucpu, cpu_mode) AS
SELECT DISTINCT execution_context_id, ucpu, cpu_mode
FROM _trak_profiler_sample
WHERE callsite_id IS NOT NULL AND execution_context_id IS NOT NULL
ORDER BY execution_context_id;

CREATE VIEW stack_sample_async_context(id, name, kind, parent_id) AS
SELECT NULL, NULL, NULL, NULL WHERE 0;

-- The counters read at each perf sample with a callstack: those of its session's tracks on
-- its CPU at its time.
CREATE VIEW stack_sample_counter(id, stack_sample_id, track_id, value) AS
SELECT c.id, ps.id, c.track_id, c.value
FROM perf_sample AS ps
JOIN perf_counter_track AS pct
  ON pct.perf_session_id = ps.perf_session_id AND pct.cpu = ifnull(ps.cpu, 0)
JOIN counter AS c ON c.track_id = pct.id AND c.ts = ps.ts
WHERE ps.callsite_id IS NOT NULL
ORDER BY c.id;

CREATE VIEW stack_sample_counter_track(id, name, type, parent_id, source_arg_set_id,
  machine_id, unit, description, session_id, cpu, is_timebase) AS
SELECT id, name, type, parent_id, source_arg_set_id, machine_id, unit, description,
  perf_session_id, cpu, is_timebase
FROM perf_counter_track
WHERE id IN (SELECT track_id FROM stack_sample_counter)
ORDER BY id;
