-- viz.summary.track_event: the track-event tracks in the order Perfetto's UI shows them.
-- _track_event_tracks_ordered_groups has one row per group of tracks (tracks sharing a
-- track_group_id, else one track): upid, utid, parent_id, is_counter, is_state, name,
-- description, unit, builtin_counter_type, y_axis_share_key, has_data, has_children,
-- has_callstacks, min_track_id, track_ids (comma-separated), order_id. order_id numbers the
-- children of one parent as the parent's child_ordering says: 'explicit' by
-- sibling_order_rank (missing ranks count as 0), 'chronological' by first event, otherwise
-- (lexicographic or unset) by name; a track's first event is its first slice, counter value
-- or state. trak imports no track-event callstacks, so has_callstacks is always 0.

CREATE PERFETTO TABLE _track_event_tracks_unordered AS
WITH te AS (
  SELECT id, name, parent_id,
    extract_arg(source_arg_set_id, 'child_ordering') AS ordering,
    extract_arg(source_arg_set_id, 'sibling_order_rank') AS rank,
    extract_arg(source_arg_set_id, 'description') AS description
  FROM track WHERE type GLOB '*_track_event'
)
SELECT t.id, t.name, t.parent_id, p.ordering AS parent_ordering, coalesce(t.rank, 0) AS rank,
  t.description
FROM te AS t LEFT JOIN te AS p ON p.id = t.parent_id;

CREATE PERFETTO TABLE _min_ts_per_track AS
SELECT track_id AS id, min(ts) AS min_ts
FROM counter JOIN _track_event_tracks_unordered AS t ON t.id = counter.track_id
GROUP BY track_id
UNION ALL
SELECT track_id AS id, min(ts) AS min_ts
FROM slice JOIN _track_event_tracks_unordered AS t ON t.id = slice.track_id
GROUP BY track_id
UNION ALL
SELECT track_id AS id, min(ts) AS min_ts
FROM state JOIN _track_event_tracks_unordered AS t ON t.id = state.track_id
GROUP BY track_id;

CREATE PERFETTO TABLE _track_event_has_children AS
SELECT DISTINCT parent_id AS id FROM track
WHERE type GLOB '*_track_event' AND parent_id IS NOT NULL;

CREATE PERFETTO TABLE _track_event_tracks_ordered_groups AS
WITH ordered AS (
  SELECT id, row_number() OVER (PARTITION BY parent_id ORDER BY name) AS order_id
  FROM _track_event_tracks_unordered
  WHERE parent_ordering IS NULL OR parent_ordering = 'lexicographic'
  UNION ALL
  SELECT id, row_number() OVER (PARTITION BY parent_id ORDER BY rank) AS order_id
  FROM _track_event_tracks_unordered WHERE parent_ordering = 'explicit'
  UNION ALL
  SELECT t.id, row_number() OVER (PARTITION BY t.parent_id ORDER BY m.min_ts) AS order_id
  FROM _track_event_tracks_unordered AS t LEFT JOIN _min_ts_per_track AS m USING (id)
  WHERE t.parent_ordering = 'chronological'
)
SELECT
  extract_arg(track.dimension_arg_set_id, 'upid') AS upid,
  extract_arg(track.dimension_arg_set_id, 'utid') AS utid,
  track.parent_id,
  track.type GLOB '*counter*' AS is_counter,
  track.type GLOB '*state*' AS is_state,
  track.name,
  min(extract_arg(track.source_arg_set_id, 'description')) AS description,
  min(counter_track.unit) AS unit,
  min(extract_arg(track.source_arg_set_id, 'builtin_counter_type')) AS builtin_counter_type,
  min(extract_arg(track.source_arg_set_id, 'y_axis_share_key')) AS y_axis_share_key,
  max(m.id IS NOT NULL) AS has_data,
  max(c.id IS NOT NULL) AS has_children,
  0 AS has_callstacks,
  min(ordered.id) AS min_track_id,
  group_concat(ordered.id) AS track_ids,
  min(ordered.order_id) AS order_id
FROM ordered
JOIN track USING (id)
LEFT JOIN counter_track USING (id)
LEFT JOIN _track_event_has_children AS c USING (id)
LEFT JOIN _min_ts_per_track AS m USING (id)
GROUP BY coalesce(track.track_group_id, track.id)
ORDER BY track.parent_id, ordered.order_id;
