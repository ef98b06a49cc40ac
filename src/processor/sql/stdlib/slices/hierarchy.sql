-- slices.hierarchy: a slice with its ancestors, or with its descendants, as table functions
-- with the columns of `slice`.

CREATE PERFETTO FUNCTION _slice_ancestor_and_self(slice_id JOINID(slice.id))
RETURNS TABLE(
  id JOINID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id), category STRING,
  name STRING, depth LONG, parent_id JOINID(slice.id), arg_set_id ARGSETID,
  thread_ts TIMESTAMP, thread_dur LONG
) AS
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM ancestor_slice($slice_id)
UNION ALL
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM slice WHERE id = $slice_id;

CREATE PERFETTO FUNCTION _slice_descendant_and_self(slice_id JOINID(slice.id))
RETURNS TABLE(
  id JOINID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id), category STRING,
  name STRING, depth LONG, parent_id JOINID(slice.id), arg_set_id ARGSETID,
  thread_ts TIMESTAMP, thread_dur LONG
) AS
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM slice WHERE id = $slice_id
UNION ALL
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM descendant_slice($slice_id);
