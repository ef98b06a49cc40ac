-- slices.flat_slices: each thread's slice stacks flattened into a sequence of non-overlapping
-- pieces, each belonging to the deepest slice open at that time (_slice_flattened: slice_id, ts,
-- dur, depth, name, root_id, track_id, utid, tid, thread_name, upid, pid, process_name).
-- A slice's pieces are the parts of it not covered by its children; instants (dur 0) cover
-- nothing and do not cut their parent.
--
-- The pieces are cut by a walk in C (slice_walks.c, __trak_slice_flat_pieces); SQL adds the
-- thread and process.

INCLUDE PERFETTO MODULE slices.with_context;

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
SELECT f.slice_id, f.ts, f.dur, f.depth, f.name, f.root_id, f.track_id, t.utid, t.tid,
  t.thread_name, t.upid, t.pid, t.process_name
FROM __trak_slice_flat_pieces AS f
JOIN _slice_flat_thread_track AS t ON t.track_id = f.track_id
ORDER BY f.slice_id, f.ts;

CREATE PERFETTO INDEX _slice_flattened_id_idx ON _slice_flattened(slice_id);
CREATE PERFETTO INDEX _slice_flattened_ts_idx ON _slice_flattened(ts);
