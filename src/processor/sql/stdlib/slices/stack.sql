-- slices.stack: slices with an id for their stack of (category, name) from the root down
-- (slice_with_stack_id), and the slices of a stack with their ancestors or descendants.
-- Stack ids are Perfetto's numbers: hash() of the '|'-joined frame hashes
-- hash("category|name") (category '' when NULL) in the order Perfetto's
-- _slice_ancestor_and_self gives the frames: the slice itself, then its ancestors from the
-- root down. parent_stack_id is 0 for a root. The ids are computed once and kept.

INCLUDE PERFETTO MODULE slices.hierarchy;

-- Filled by a walk in C (slice_walks.c): the recursive SQL form took seconds per million slices.
CREATE PERFETTO TABLE _slice_stack_hash AS
SELECT id, stack_hash FROM __trak_slice_stack_ids;

CREATE PERFETTO INDEX _slice_stack_hash_id ON _slice_stack_hash(id);

CREATE PERFETTO VIEW slice_with_stack_id(
  id ID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id), category STRING,
  name STRING, depth LONG, parent_id JOINID(slice.id), arg_set_id ARGSETID,
  thread_ts TIMESTAMP, thread_dur LONG, thread_instruction_count LONG,
  thread_instruction_delta LONG, stack_id LONG, parent_stack_id LONG
) AS
SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, s.parent_id, s.arg_set_id,
  s.thread_ts, s.thread_dur, s.thread_instruction_count, s.thread_instruction_delta,
  h.stack_hash AS stack_id, coalesce(ph.stack_hash, 0) AS parent_stack_id
FROM slice AS s
JOIN _slice_stack_hash AS h ON h.id = s.id
LEFT JOIN _slice_stack_hash AS ph ON ph.id = s.parent_id;

CREATE PERFETTO FUNCTION ancestor_slice_by_stack(stack_hash LONG)
RETURNS TABLE(
  id JOINID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id), category STRING,
  name STRING, depth LONG, parent_id JOINID(slice.id), arg_set_id ARGSETID,
  thread_ts TIMESTAMP, thread_dur LONG
) AS
SELECT DISTINCT a.id, a.ts, a.dur, a.track_id, a.category, a.name, a.depth, a.parent_id,
  a.arg_set_id, a.thread_ts, a.thread_dur
FROM _slice_stack_hash AS h, _slice_ancestor_and_self(h.id) AS a
WHERE h.stack_hash = $stack_hash
ORDER BY a.id;

CREATE PERFETTO FUNCTION descendant_slice_by_stack(stack_hash LONG)
RETURNS TABLE(
  id JOINID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id), category STRING,
  name STRING, depth LONG, parent_id JOINID(slice.id), arg_set_id ARGSETID,
  thread_ts TIMESTAMP, thread_dur LONG
) AS
SELECT DISTINCT d.id, d.ts, d.dur, d.track_id, d.category, d.name, d.depth, d.parent_id,
  d.arg_set_id, d.thread_ts, d.thread_dur
FROM _slice_stack_hash AS h, _slice_descendant_and_self(h.id) AS d
WHERE h.stack_hash = $stack_hash
ORDER BY d.id;
