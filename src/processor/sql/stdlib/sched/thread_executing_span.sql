-- sched.thread_executing_span: Perfetto's wakeup graph of thread states and the critical path
-- through it ("why was this thread not running?").
-- A thread executing span starts at a runnable state a thread (not an interrupt) woke and runs
-- until the thread's next such wakeup; its id is the runnable state's id.
--   _wakeup_graph(utid, id, waker_id, ts, idle_state, idle_reason, idle_dur, prev_id, dur): one
--     node per span: idle over [ts - idle_dur, ts) in idle_state ('S', 'D', 'I' or 'IRQ'),
--     woken by span waker_id, running until ts + dur (the thread's next sleep); prev_id is the
--     thread's previous span.
--   _critical_path_by_roots!(roots (root_node_id), nodes) -> (root_id, id, ts, dur): for each
--     root span, which span was the blocker at each moment of the root's idle and run: while the
--     root sleeps, its waker (and recursively the waker's waker); while it runs, itself.
--   _critical_path_by_intervals!(intervals (utid, ts, dur), nodes) -> (root_utid, utid,
--     root_id, id, ts, dur, interval_ts, interval_dur): the same over time intervals of threads.
--   _thread_executing_span_critical_path(root_utid, ts, dur) -> (root_utid, root_id, id, ts, dur,
--     utid): the critical path of one thread over [ts, ts + dur).
-- The walk runs in C (__trak_graph('critical_path', ...), critical_path.c), as Perfetto's
-- __intrinsic_critical_path_walk.

INCLUDE PERFETTO MODULE intervals.overlap;
INCLUDE PERFETTO MODULE intervals.intersect;

-- Whether a runnable state counts as an interrupt wakeup: irq_context 1, or io_wait.
CREATE PERFETTO MACRO _thread_executing_span_is_irq(irq_context Expr, io_wait Expr)
RETURNS Expr AS
iif($irq_context = 0 OR $irq_context IS NULL, coalesce($io_wait, 0), 1);

-- Finished runnable states with a waker (woken by a thread or an interrupt).
CREATE PERFETTO TABLE _runnable_state AS
SELECT id, ts, dur, state, utid, waker_id, waker_utid,
  _thread_executing_span_is_irq!(irq_context, io_wait) AS is_irq
FROM thread_state
WHERE dur != -1 AND waker_id IS NOT NULL;

-- Whether the trace is a Fuchsia trace (runnable states there are 'W' before the first run).
CREATE PERFETTO TABLE _is_fuchsia AS
SELECT EXISTS (
  SELECT 1 FROM metadata WHERE name = 'trace_type' AND str_value = 'fuchsia'
) AS is_fuchsia;

-- Whether a thread state is a task becoming runnable.
CREATE PERFETTO MACRO _is_runnable_state(state Expr)
RETURNS Expr AS
$state = 'R' OR ($state = 'W' AND (SELECT is_fuchsia FROM _is_fuchsia));

-- Each thread's first thread state, when it is a finished runnable state.
CREATE PERFETTO TABLE _first_runnable_state AS
WITH first_state AS (SELECT min(id) AS id FROM thread_state GROUP BY utid)
SELECT ts.id, ts.ts, ts.dur, ts.state, ts.utid, ts.waker_id, ts.waker_utid,
  _thread_executing_span_is_irq!(ts.irq_context, ts.io_wait) AS is_irq
FROM thread_state AS ts
JOIN first_state USING (id)
WHERE ts.dur != -1 AND _is_runnable_state!(ts.state);

-- Finished sleep states: interruptible (S), uninterruptible (D) and idle (I).
CREATE PERFETTO TABLE _sleep_state AS
SELECT id, ts, dur, state, blocked_function, utid
FROM thread_state
WHERE dur != -1 AND (state = 'S' OR state = 'D' OR state = 'I');

-- The end of each thread's last finished thread state.
CREATE PERFETTO TABLE _thread_end_ts AS
SELECT max(ts) + dur AS end_ts, utid
FROM thread_state
WHERE dur != -1
GROUP BY utid;

CREATE PERFETTO INDEX _thread_end_ts_idx ON _thread_end_ts(utid);

-- Sleep states by thread and end, to find the one a runnable state ends. The schema gives end_ts
-- integer affinity: without it (an expression's column has none) SQLite may not use the index
-- for end_ts = a runnable state's ts, and each lookup scans the thread's sleeps.
CREATE PERFETTO TABLE _thread_executing_span_sleep_end(
  id LONG, ts TIMESTAMP, dur DURATION, state STRING, blocked_function STRING, utid LONG,
  end_ts TIMESTAMP
) AS
SELECT id, ts, dur, state, blocked_function, utid, ts + dur AS end_ts FROM _sleep_state;

CREATE PERFETTO INDEX _thread_executing_span_sleep_end_idx
ON _thread_executing_span_sleep_end(utid, end_ts);

-- Sleep states with the runnable state that ends them (same thread, sleep's end = its start).
CREATE PERFETTO VIEW _thread_executing_span_sleep_runnable AS
SELECT s.id AS sleep_id, s.ts AS sleep_ts, s.dur AS sleep_dur, s.state AS sleep_state,
  s.blocked_function, r.*
FROM _runnable_state AS r
JOIN _thread_executing_span_sleep_end AS s ON s.utid = r.utid AND s.end_ts = r.ts;

-- Each thread's first sleep state followed by a runnable state.
CREATE PERFETTO TABLE _first_sleep_state AS
SELECT min(sleep_id) AS id, sleep_ts AS ts, sleep_dur AS dur, sleep_state AS state,
  blocked_function, utid
FROM _thread_executing_span_sleep_runnable
GROUP BY utid;

CREATE PERFETTO INDEX _first_sleep_state_idx ON _first_sleep_state(utid);

-- Wakeups: each (sleep, runnable) pair of a thread, plus each thread's first runnable state.
-- prev_end_ts is the sleep's start, thread_end_ts the end of the thread's last state.
CREATE PERFETTO TABLE _wakeup AS
WITH all_wakeups AS (
  SELECT sleep_state AS state, blocked_function, id, ts, utid, waker_id, waker_utid,
    sleep_ts AS prev_end_ts, is_irq
  FROM _thread_executing_span_sleep_runnable
  UNION ALL
  SELECT NULL AS state, NULL AS blocked_function, r.id, r.ts, r.utid, r.waker_id, r.waker_utid,
    NULL AS prev_end_ts, r.is_irq
  FROM _first_runnable_state AS r
  LEFT JOIN _first_sleep_state AS s ON s.utid = r.utid
)
SELECT all_wakeups.*, thread_end.end_ts AS thread_end_ts
FROM all_wakeups
LEFT JOIN _thread_end_ts AS thread_end USING (utid);

-- From each Running state (id as waker_id) to the runnable state that started its span (id).
CREATE PERFETTO TABLE _wakeup_map AS
WITH x AS (
  SELECT id, waker_id, utid, state FROM thread_state WHERE state = 'Running' AND dur != -1
  UNION ALL
  SELECT id, waker_id, utid, state FROM _first_runnable_state
  UNION ALL
  SELECT id, waker_id, utid, state FROM _runnable_state
),
y AS (
  SELECT id AS waker_id, state,
    max(id) FILTER (WHERE _is_runnable_state!(state)) OVER (PARTITION BY utid ORDER BY id) AS id
  FROM x
)
SELECT id, waker_id FROM y WHERE state = 'Running' ORDER BY waker_id;

CREATE PERFETTO INDEX _wakeup_map_idx ON _wakeup_map(waker_id);

-- The wakeup graph: the waker and previous span of every thread executing span.
CREATE PERFETTO TABLE _wakeup_graph AS
WITH _wakeup_events AS (
  SELECT utid, thread_end_ts, iif(is_irq, 'IRQ', state) AS idle_state,
    blocked_function AS idle_reason, _wakeup.id,
    iif(is_irq, NULL, _wakeup_map.id) AS waker_id, _wakeup.ts, prev_end_ts AS idle_ts
  FROM _wakeup
  LEFT JOIN _wakeup_map USING (waker_id)
)
SELECT utid, id, waker_id, ts, idle_state, idle_reason, ts - idle_ts AS idle_dur,
  lag(id) OVER (PARTITION BY utid ORDER BY ts) AS prev_id,
  coalesce(lead(idle_ts) OVER (PARTITION BY utid ORDER BY ts), thread_end_ts) - ts AS dur
FROM _wakeup_events
ORDER BY id;

-- Nodes by id, for the lookups of _critical_path_by_intervals! (through a CTE of the nodes SQLite
-- may scan them once per piece of path instead of indexing them).
CREATE PERFETTO INDEX _wakeup_graph_id_idx ON _wakeup_graph(id);

-- The roots (root_node_id, capacity) whose spans cover the intervals (utid, ts, dur) of a table:
-- on each interval's thread, the spans from the last one starting at or before the interval's
-- start to the first one starting at or after its end.
CREATE PERFETTO MACRO _intervals_to_roots(
  _source_table TableOrSubQuery, _node_table TableOrSubQuery
)
RETURNS TableOrSubQuery AS
(
  WITH _interval_to_root_nodes AS (SELECT * FROM $_node_table),
  _source AS (SELECT * FROM $_source_table),
  _thread_bounds AS (
    SELECT utid, min(ts) AS min_start, max(ts) AS max_start
    FROM _interval_to_root_nodes
    GROUP BY utid
  ),
  _start AS (
    SELECT n.utid, max(n.id) AS _start_id, _source.ts, _source.dur
    FROM _interval_to_root_nodes AS n
    JOIN _thread_bounds USING (utid)
    JOIN _source ON _source.utid = n.utid AND max(_source.ts, min_start) >= n.ts
    GROUP BY _source.ts, _source.utid
  ),
  _end AS (
    SELECT n.utid, min(n.id) AS _end_id, _source.ts, _source.dur
    FROM _interval_to_root_nodes AS n
    JOIN _thread_bounds USING (utid)
    JOIN _source ON _source.utid = n.utid AND min(_source.ts + _source.dur, max_start) <= n.ts
    GROUP BY _source.ts, _source.utid
  ),
  _bound AS (
    SELECT _start.utid, _start.ts, _start.dur, _start_id, _end_id
    FROM _start
    JOIN _end ON _start.ts = _end.ts AND _start.dur = _end.dur AND _start.utid = _end.utid
  )
  SELECT DISTINCT id AS root_node_id, id - coalesce(prev_id, id) AS capacity
  FROM _bound
  JOIN _interval_to_root_nodes AS n
    ON n.id BETWEEN _start_id AND _end_id AND n.utid = _bound.utid
);

-- The critical path of the roots with the chain depth kept: (root_id, depth, ts, dur, id,
-- parent_id), id the blocker at that depth (the root at depth 0), parent_id the root.
CREATE PERFETTO MACRO _critical_path_with_depth_by_roots(
  _roots_table TableOrSubQuery, _node_table TableOrSubQuery
)
RETURNS TableOrSubQuery AS
(
  SELECT c0 AS root_id, c1 AS depth, c2 AS ts, c3 AS dur, c4 AS id, c6 AS parent_id
  FROM __trak_graph('critical_path',
    (SELECT __trak_int_rows(id, utid, ts, dur, idle_dur, waker_id, prev_id) FROM $_node_table),
    (SELECT __trak_int_rows(root_node_id) FROM $_roots_table))
);

-- The critical path of the roots, one blocker per (root_id, ts).
CREATE PERFETTO MACRO _critical_path_by_roots(
  _roots_table TableOrSubQuery, _node_table TableOrSubQuery
)
RETURNS TableOrSubQuery AS
(
  WITH _frames AS (
    SELECT * FROM _critical_path_with_depth_by_roots!($_roots_table, $_node_table)
  ),
  _root_spans AS (
    SELECT root_id, min(ts) AS root_ts, max(ts + dur) - min(ts) AS root_dur
    FROM _frames
    GROUP BY root_id
  ),
  _flatten_input AS (
    SELECT _frames.root_id, root_ts, root_dur, parent_id, id, ts, dur
    FROM _frames
    JOIN _root_spans USING (root_id)
  )
  SELECT flat.root_id, flat.id, flat.ts, flat.dur
  FROM _intervals_flatten!(_flatten_input) AS flat
  WHERE flat.dur > 0
  GROUP BY flat.root_id, flat.ts
);

-- The critical path over time intervals (utid, ts, dur) of threads, cut to the intervals.
CREATE PERFETTO MACRO _critical_path_by_intervals(
  _intervals_table TableOrSubQuery, _node_table TableOrSubQuery
)
RETURNS TableOrSubQuery AS
(
  WITH _nodes AS (SELECT * FROM $_node_table),
  _intervals AS (
    SELECT row_number() OVER (ORDER BY ts) AS id, ts, dur, utid AS root_utid
    FROM $_intervals_table
  ),
  _critical_path AS (
    SELECT row_number() OVER (ORDER BY ts) AS id, root_id, id AS cr_id, ts, dur
    FROM _critical_path_by_roots!(_intervals_to_roots!($_intervals_table, $_node_table), _nodes)
  ),
  _span AS (
    SELECT _root_nodes.utid AS root_utid, _nodes.utid, cr.root_id, cr.cr_id, cr.id, cr.ts, cr.dur
    FROM _critical_path AS cr
    JOIN $_node_table AS _root_nodes ON _root_nodes.id = +cr.root_id
    JOIN $_node_table AS _nodes ON _nodes.id = +cr.cr_id
  )
  SELECT DISTINCT _span.root_utid, _span.utid, _span.root_id, _span.cr_id AS id, ii.ts, ii.dur,
    _intervals.ts AS interval_ts, _intervals.dur AS interval_dur
  FROM _interval_intersect!((_span, _intervals), (root_utid)) AS ii
  JOIN _span ON _span.id = +ii.id_0
  JOIN _intervals ON _intervals.id = +ii.id_1
);

-- The critical path of thread root_utid over [ts, ts + dur): which thread executing span was
-- the blocker at each moment.
CREATE PERFETTO FUNCTION _thread_executing_span_critical_path(
  -- Utid of the thread to compute the critical path for.
  root_utid JOINID(thread.id),
  -- Timestamp.
  ts TIMESTAMP,
  -- Duration.
  dur DURATION
)
RETURNS TABLE(
  -- Thread utid the critical path was filtered to.
  root_utid JOINID(thread.id),
  -- Id of the thread executing span following the sleep the critical path is computed for.
  root_id LONG,
  -- Id of the first (runnable) thread state of the blocking thread executing span.
  id LONG,
  -- Start of this piece of the path.
  ts TIMESTAMP,
  -- Duration of this piece of the path.
  dur DURATION,
  -- Utid of the blocking thread.
  utid JOINID(thread.id)
)
AS
SELECT root_utid, root_id, id, ts, dur, utid
FROM _critical_path_by_intervals!(
  (SELECT $root_utid AS utid, $ts AS ts, $dur AS dur), _wakeup_graph);
