-- slices.flat_slices: each thread's slice stacks flattened into a sequence of non-overlapping
-- pieces, each belonging to the deepest slice open at that time (_slice_flattened: slice_id, ts,
-- dur, depth, name, root_id, track_id, utid, tid, thread_name, upid, pid, process_name).
-- A slice's pieces are the parts of it not covered by its children; instants (dur 0) cover
-- nothing and do not cut their parent.

INCLUDE PERFETTO MODULE slices.with_context;

CREATE PERFETTO TABLE _slice_flattened AS
WITH RECURSIVE
  finished AS (SELECT id, ts, ts + dur AS e, parent_id FROM slice WHERE dur >= 0),
  kids AS (
    SELECT parent_id AS owner, ts, e,
      lead(ts) OVER (PARTITION BY parent_id ORDER BY ts) AS next_ts
    FROM finished WHERE parent_id IS NOT NULL AND e > ts
  ),
  first_kid AS (SELECT owner, min(ts) AS ts FROM kids GROUP BY owner),
  pieces(id, ts, e) AS (
    SELECT f.id, f.ts, coalesce(k.ts, f.e) FROM finished AS f LEFT JOIN first_kid AS k
      ON k.owner = f.id
    UNION ALL
    SELECT k.owner, k.e, coalesce(k.next_ts, p.e) FROM kids AS k JOIN finished AS p
      ON p.id = k.owner
  ),
  roots(id, root_id) AS (
    SELECT id, id FROM slice WHERE parent_id IS NULL
    UNION ALL
    SELECT s.id, roots.root_id FROM roots JOIN slice AS s ON s.parent_id = roots.id
  )
SELECT pieces.id AS slice_id, pieces.ts, pieces.e - pieces.ts AS dur, ts_.depth, ts_.name,
  roots.root_id, ts_.track_id, ts_.utid, ts_.tid, ts_.thread_name, ts_.upid, ts_.pid,
  ts_.process_name
FROM pieces
JOIN thread_slice AS ts_ ON ts_.id = pieces.id
JOIN roots ON roots.id = pieces.id
WHERE pieces.e > pieces.ts
ORDER BY pieces.id, pieces.ts;

CREATE PERFETTO INDEX _slice_flattened_id_idx ON _slice_flattened(slice_id);
CREATE PERFETTO INDEX _slice_flattened_ts_idx ON _slice_flattened(ts);
