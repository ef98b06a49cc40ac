-- slices.self_dur: each slice's time not spent in its children (slice_self_dur: id, self_dur).
-- As Perfetto, durations are taken as they are: an unfinished slice's dur -1 counts as -1.

CREATE PERFETTO TABLE _slice_children_dur AS
SELECT parent_id AS id, sum(dur) AS children_dur
FROM slice
WHERE parent_id IS NOT NULL
GROUP BY parent_id;

CREATE PERFETTO TABLE slice_self_dur(id ID(slice.id), self_dur DURATION) AS
SELECT s.id, s.dur - coalesce(c.children_dur, 0) AS self_dur
FROM slice AS s
LEFT JOIN _slice_children_dur AS c USING (id);
