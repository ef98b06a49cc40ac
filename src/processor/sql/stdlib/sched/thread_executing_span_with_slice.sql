-- sched.thread_executing_span_with_slice: Perfetto's critical path of sched.thread_executing_span
-- with the thread states and slices of the blocking threads, as stacks for a debug track.
--   _critical_path_all(id, ts, dur, ts_end, utid, root_utid): the critical path of every span.
--   _critical_path_thread_state_slice(ts, dur, utid, thread_state_id, state, function, cpu,
--     io_wait, slice_id, slice_depth, root_utid): the path cut by the blockers' thread states
--     and deepest slices.
--   _critical_path_stack(root_utid, ts, dur, enable_process_name, enable_thread_name,
--     enable_self_slice, enable_critical_path_slice) -> (id, ts, dur, utid, stack_depth, name,
--     table_name, root_utid): for each moment of [ts, ts + dur), a stack of rows: the thread's own
--     state, blocked function, io_wait, process, thread and slices, then the blocker's state,
--     process, thread, blocked function, io_wait and slices, then the CPU that was running.
--   _thread_executing_span_critical_path_stack(root_utid, ts, dur): the stack with every part on.
-- Perfetto's _critical_path_graph and _thread_executing_span_critical_path_graph (a pprof of the
-- stacks) are not here: trak has no pprof builder (experimental_profile).

INCLUDE PERFETTO MODULE slices.flat_slices;
INCLUDE PERFETTO MODULE sched.thread_executing_span;
INCLUDE PERFETTO MODULE intervals.intersect;

-- The critical path of every span, with the blocking thread (utid) and the root's (root_utid).
CREATE PERFETTO TABLE _critical_path_all AS
WITH _per_root AS (
  SELECT *
  FROM _critical_path_by_roots!((SELECT id AS root_node_id FROM _wakeup_graph), _wakeup_graph)
)
SELECT row_number() OVER (ORDER BY cr.ts) AS id, cr.ts, cr.dur, cr.ts + cr.dur AS ts_end,
  id_graph.utid, root_id_graph.utid AS root_utid
FROM _per_root AS cr
JOIN _wakeup_graph AS id_graph ON cr.id = id_graph.id
JOIN _wakeup_graph AS root_id_graph ON cr.root_id = root_id_graph.id
ORDER BY cr.ts;

-- Thread states for the span join with slices.
CREATE PERFETTO VIEW _span_thread_state_view AS
SELECT id AS thread_state_id, ts, dur, utid, state, blocked_function AS function, io_wait, cpu
FROM thread_state;

-- Deepest slices for the span join with thread states (names are joined at the stack's leaves).
CREATE PERFETTO VIEW _span_slice_view AS
SELECT slice_id, depth AS slice_depth, cast_int!(ts) AS ts, cast_int!(dur) AS dur, utid
FROM _slice_flattened;

-- Thread states cut by the deepest slice of their thread.
CREATE VIRTUAL TABLE _span_thread_state_slice_sp USING SPAN_LEFT_JOIN(
  _span_thread_state_view PARTITIONED utid,
  _span_slice_view PARTITIONED utid);

CREATE PERFETTO TABLE _span_thread_state_slice AS
SELECT row_number() OVER (ORDER BY ts) AS id, ts, dur, ts + dur AS ts_end, utid, thread_state_id,
  state, function, cpu, io_wait, slice_id, slice_depth
FROM _span_thread_state_slice_sp
WHERE dur > 0
ORDER BY ts;

-- The critical path met with the blockers' thread states and slices, as ids.
CREATE PERFETTO TABLE _critical_path_thread_state_slice_raw AS
SELECT id_0 AS cr_id, id_1 AS th_id, ts, dur
FROM _interval_intersect!((_critical_path_all, _span_thread_state_slice), (utid));

-- The critical path cut by the blockers' thread states and deepest slices.
CREATE PERFETTO TABLE _critical_path_thread_state_slice AS
SELECT raw.ts, raw.dur, cr.utid, thread_state_id, state, function, cpu, io_wait, slice_id,
  slice_depth, root_utid
FROM _critical_path_thread_state_slice_raw AS raw
JOIN _critical_path_all AS cr ON cr.id = raw.cr_id
JOIN _span_thread_state_slice AS th ON th.id = raw.th_id;

-- Thread states cut by the deepest slice of their thread: the thread's own side.
CREATE VIRTUAL TABLE _self_sp USING SPAN_LEFT_JOIN(
  thread_state PARTITIONED utid,
  _slice_flattened PARTITIONED utid);

CREATE PERFETTO VIEW _self_view AS
SELECT id AS self_thread_state_id, slice_id AS self_slice_id, ts, dur, utid AS root_utid,
  state AS self_state, blocked_function AS self_function, cpu AS self_cpu,
  io_wait AS self_io_wait, depth AS self_slice_depth
FROM _self_sp;

-- The thread's own side met with its critical path.
CREATE VIRTUAL TABLE _self_and_critical_path_sp USING SPAN_JOIN(
  _self_view PARTITIONED root_utid,
  _critical_path_thread_state_slice PARTITIONED root_utid);

-- The stacks of the critical path of root_utid over [ts, ts + dur); the enable_* arguments
-- name the process, the thread, the thread's slices and the blockers' slices (or leave them
-- NULL).
CREATE PERFETTO FUNCTION _critical_path_stack(
  root_utid JOINID(thread.id),
  ts TIMESTAMP,
  dur DURATION,
  enable_process_name LONG,
  enable_thread_name LONG,
  enable_self_slice LONG,
  enable_critical_path_slice LONG
)
RETURNS TABLE(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  utid JOINID(thread.id),
  stack_depth LONG,
  name STRING,
  table_name STRING,
  root_utid JOINID(thread.id)
)
AS
WITH relevant_spans_starts AS (
  SELECT self_thread_state_id, self_state, self_slice_id, self_slice_depth, self_function,
    self_io_wait, thread_state_id, state, function, io_wait, slice_id, slice_depth, cpu, utid,
    max(ts, $ts) AS ts, min(ts + dur, $ts + $dur) AS end_ts, root_utid
  FROM _self_and_critical_path_sp
  WHERE dur > 0 AND root_utid = $root_utid
),
relevant_spans AS MATERIALIZED (
  SELECT self_thread_state_id, self_state, self_slice_id, self_slice_depth, self_function,
    self_io_wait, thread_state_id, state, function, io_wait, slice_id, slice_depth, cpu, utid, ts,
    end_ts - ts AS dur, root_utid
  FROM relevant_spans_starts
  WHERE dur > 0
),
-- 1. The thread's own stack.
self_stack AS MATERIALIZED (
  SELECT self_thread_state_id AS id, ts, dur, root_utid AS utid, 0 AS stack_depth,
    'thread_state: ' || self_state AS name, 'thread_state' AS table_name, root_utid
  FROM relevant_spans
  UNION ALL
  SELECT self_thread_state_id AS id, ts, dur, root_utid AS utid, 1 AS stack_depth,
    iif(self_state GLOB 'R*', NULL, 'kernel function: ' || self_function) AS name,
    'thread_state' AS table_name, root_utid
  FROM relevant_spans
  UNION ALL
  SELECT self_thread_state_id AS id, ts, dur, root_utid AS utid, 2 AS stack_depth,
    iif(self_state GLOB 'R*', NULL, 'io_wait: ' || self_io_wait) AS name,
    'thread_state' AS table_name, root_utid
  FROM relevant_spans
  UNION ALL
  SELECT self_thread_state_id AS id, ts, dur, thread.utid, 3 AS stack_depth,
    iif($enable_process_name, 'process_name: ' || process.name, NULL) AS name,
    'thread_state' AS table_name, root_utid
  FROM relevant_spans
  LEFT JOIN thread ON thread.utid = root_utid
  LEFT JOIN process USING (upid)
  UNION ALL
  SELECT self_thread_state_id AS id, ts, dur, thread.utid, 4 AS stack_depth,
    iif($enable_thread_name, 'thread_name: ' || thread.name, NULL) AS name,
    'thread_state' AS table_name, root_utid
  FROM relevant_spans
  LEFT JOIN thread ON thread.utid = root_utid
  JOIN process USING (upid)
  UNION ALL
  SELECT anc.id, slice.ts, slice.dur, root_utid AS utid, anc.depth + 5 AS stack_depth,
    iif($enable_self_slice, anc.name, NULL) AS name, 'slice' AS table_name, root_utid
  FROM relevant_spans AS slice, ancestor_slice(self_slice_id) AS anc
  WHERE anc.dur != -1
  UNION ALL
  SELECT spans.self_slice_id AS id, spans.ts, spans.dur, spans.root_utid AS utid,
    spans.self_slice_depth + 5 AS stack_depth, iif($enable_self_slice, sl.name, NULL) AS name,
    'slice' AS table_name, spans.root_utid
  FROM relevant_spans AS spans
  LEFT JOIN slice AS sl ON sl.id = spans.self_slice_id
  ORDER BY stack_depth
),
-- Where each moment's blocker stack starts: below the deepest row of the own stack.
critical_path_start_depth AS MATERIALIZED (
  SELECT root_utid, ts, max(stack_depth) + 1 AS start_depth
  FROM self_stack
  GROUP BY root_utid, ts
),
critical_path_span AS MATERIALIZED (
  SELECT thread_state_id, state, function, io_wait, slice_id, slice_depth, spans.ts, spans.dur,
    spans.root_utid, utid, start_depth
  FROM relevant_spans AS spans
  JOIN critical_path_start_depth AS d ON d.root_utid = spans.root_utid AND d.ts = spans.ts
  WHERE d.root_utid = $root_utid AND spans.root_utid != spans.utid
),
-- 2. The blocker's stack.
critical_path_stack AS MATERIALIZED (
  SELECT thread_state_id AS id, ts, dur, utid, start_depth AS stack_depth,
    'blocking thread_state: ' || state AS name, 'thread_state' AS table_name, root_utid
  FROM critical_path_span
  UNION ALL
  SELECT thread_state_id AS id, ts, dur, thread.utid, start_depth + 1 AS stack_depth,
    'blocking process_name: ' || process.name, 'thread_state' AS table_name, root_utid
  FROM critical_path_span
  JOIN thread USING (utid)
  LEFT JOIN process USING (upid)
  UNION ALL
  SELECT thread_state_id AS id, ts, dur, thread.utid, start_depth + 2 AS stack_depth,
    'blocking thread_name: ' || thread.name, 'thread_state' AS table_name, root_utid
  FROM critical_path_span
  JOIN thread USING (utid)
  UNION ALL
  SELECT thread_state_id AS id, ts, dur, thread.utid, start_depth + 3 AS stack_depth,
    'blocking kernel_function: ' || function, 'thread_state' AS table_name, root_utid
  FROM critical_path_span
  JOIN thread USING (utid)
  UNION ALL
  SELECT thread_state_id AS id, ts, dur, thread.utid, start_depth + 4 AS stack_depth,
    'blocking io_wait: ' || io_wait, 'thread_state' AS table_name, root_utid
  FROM critical_path_span
  JOIN thread USING (utid)
  UNION ALL
  SELECT anc.id, slice.ts, slice.dur, slice.utid, anc.depth + start_depth + 5 AS stack_depth,
    iif($enable_critical_path_slice, anc.name, NULL) AS name, 'slice' AS table_name, root_utid
  FROM critical_path_span AS slice, ancestor_slice(slice.slice_id) AS anc
  WHERE anc.dur != -1
  UNION ALL
  SELECT cps.slice_id AS id, cps.ts, cps.dur, cps.utid,
    cps.slice_depth + cps.start_depth + 5 AS stack_depth,
    iif($enable_critical_path_slice, sl.name, NULL) AS name, 'slice' AS table_name, cps.root_utid
  FROM critical_path_span AS cps
  LEFT JOIN slice AS sl ON sl.id = cps.slice_id
  ORDER BY stack_depth
),
-- Where each moment's CPU row goes: below both stacks.
cpu_start_depth_raw AS (
  SELECT root_utid, ts, max(stack_depth) + 1 AS start_depth
  FROM critical_path_stack
  GROUP BY root_utid, ts
  UNION ALL
  SELECT * FROM critical_path_start_depth
),
cpu_start_depth AS (
  SELECT root_utid, ts, max(start_depth) AS start_depth
  FROM cpu_start_depth_raw
  GROUP BY root_utid, ts
),
-- 3. The CPU of a Running state, the thread's own or the blocker's.
cpu_stack AS (
  SELECT thread_state_id AS id, spans.ts, spans.dur, utid, start_depth AS stack_depth,
    'cpu: ' || cpu AS name, 'thread_state' AS table_name, spans.root_utid
  FROM relevant_spans AS spans
  JOIN cpu_start_depth AS d ON d.root_utid = spans.root_utid AND d.ts = spans.ts
  WHERE (d.root_utid = $root_utid AND state = 'Running') OR self_state = 'Running'
),
merged AS (
  SELECT * FROM self_stack
  UNION ALL
  SELECT * FROM critical_path_stack
  UNION ALL
  SELECT * FROM cpu_stack
)
SELECT * FROM merged WHERE id IS NOT NULL;

-- The critical path of root_utid over [ts, ts + dur) as stacks: the thread's state, blocked
-- function, process, thread and slices, then the blocker's state, process, thread and slices,
-- then the running CPU.
CREATE PERFETTO FUNCTION _thread_executing_span_critical_path_stack(
  -- Thread utid to filter critical paths to.
  root_utid JOINID(thread.id),
  -- Start of the time range.
  ts TIMESTAMP,
  -- Duration of the time range.
  dur DURATION
)
RETURNS TABLE(
  -- Id of the thread_state or slice.
  id LONG,
  -- Start of the row.
  ts TIMESTAMP,
  -- Duration of the row.
  dur DURATION,
  -- Utid of the thread the row is about.
  utid JOINID(thread.id),
  -- Depth of the row in its stack.
  stack_depth LONG,
  -- What the row is (thread state, kernel function, process, thread, slice name or cpu).
  name STRING,
  -- Table of id: 'slice' or 'thread_state'.
  table_name STRING,
  -- Utid of the thread the critical path is for.
  root_utid JOINID(thread.id)
)
AS
SELECT * FROM _critical_path_stack($root_utid, $ts, $dur, 1, 1, 1, 1);
