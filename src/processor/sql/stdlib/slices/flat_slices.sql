-- slices.flat_slices: each thread's slice stacks flattened into a sequence of non-overlapping
-- pieces, each belonging to the deepest slice open at that time (_slice_flattened: slice_id, ts,
-- dur, depth, name, root_id, track_id, utid, tid, thread_name, upid, pid, process_name).
-- A slice's pieces are the parts of it not covered by its children; instants (dur 0) cover
-- nothing and do not cut their parent.
--
-- Written without recursion (roots come from the parent pointers in C), so it stays linear.

INCLUDE PERFETTO MODULE slices.with_context;

-- The children that cover time, with the start of their next sibling.
CREATE PERFETTO TABLE _slice_timed_children AS
SELECT parent_id AS owner, ts, ts + dur AS e,
  lead(ts) OVER (PARTITION BY parent_id ORDER BY ts) AS next_ts
FROM slice
WHERE parent_id IS NOT NULL AND dur > 0;

CREATE PERFETTO INDEX _slice_timed_children_idx ON _slice_timed_children(owner, ts);

-- Thread and process of each thread track (few rows), to label the pieces without a per-piece
-- walk through thread_slice's joins.
CREATE PERFETTO TABLE _slice_flat_thread_track AS
SELECT tt.id AS track_id, th.utid, th.tid, th.name AS thread_name, th.upid, pr.pid,
  pr.name AS process_name
FROM thread_track AS tt
JOIN thread AS th ON th.utid = tt.utid
LEFT JOIN process AS pr ON pr.upid = th.upid;

CREATE PERFETTO INDEX _slice_flat_thread_track_idx ON _slice_flat_thread_track(track_id);

CREATE PERFETTO TABLE _slice_flattened AS
WITH
  pieces AS (
    -- From a slice's start to its first child (or its end).
    SELECT s.id, s.ts,
      coalesce((SELECT min(k.ts) FROM _slice_timed_children AS k WHERE k.owner = s.id),
        s.ts + s.dur) AS e,
      s.depth, s.name, s.track_id
    FROM slice AS s
    WHERE s.dur >= 0
    UNION ALL
    -- From each child's end to the next child (or the parent's end).
    SELECT k.owner, k.e, coalesce(k.next_ts, p.ts + p.dur), p.depth, p.name, p.track_id
    FROM _slice_timed_children AS k JOIN slice AS p ON p.id = k.owner
  )
SELECT pieces.id AS slice_id, pieces.ts, pieces.e - pieces.ts AS dur, pieces.depth, pieces.name,
  __intrinsic_slice_root_id(pieces.id) AS root_id, pieces.track_id, t.utid, t.tid,
  t.thread_name, t.upid, t.pid, t.process_name
FROM pieces
JOIN _slice_flat_thread_track AS t ON t.track_id = pieces.track_id
WHERE pieces.e > pieces.ts
ORDER BY pieces.id, pieces.ts;

CREATE PERFETTO INDEX _slice_flattened_id_idx ON _slice_flattened(slice_id);
CREATE PERFETTO INDEX _slice_flattened_ts_idx ON _slice_flattened(ts);
