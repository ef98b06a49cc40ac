-- counters.global_tracks: whether a counter track is told apart by its name alone (no other
-- dimension: a global counter such as a SysStats or atrace counter without a process).

CREATE PERFETTO FUNCTION _counter_track_is_only_name_dimension(
  -- The counter track.
  track_id LONG
)
-- 1 when the track has no dimension but `name`.
RETURNS BOOL AS
SELECT NOT EXISTS (
  SELECT 1
  FROM counter_track AS t
  JOIN args AS a ON a.arg_set_id = t.dimension_arg_set_id
  WHERE t.id = $track_id AND a.key != 'name'
  LIMIT 1
);
