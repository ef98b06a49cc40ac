-- trace: golden/json/json_ties.json
-- Same-timestamp order as Perfetto's sorter (ends first, X by duration, then file order),
-- instants stacking, ends matched by name, X events that partly overlap spilling onto
-- thread_overlapping_slice tracks, ends with nothing to end not counted, an async e sorted
-- after an n at its timestamp (only thread ends sort first).
select s.id, s.name, s.ts, s.dur, s.depth, s.parent_id, t.type,
       (select count(*) from track o where o.type = t.type and o.id < t.id) as lane
from slice s join track t on s.track_id = t.id order by s.id;
select name, value from stats where value > 0 order by name;
select l.id, l.ts, l.severity, l.name, a.key, a.display_value
from _trace_import_logs l join args a using (arg_set_id) order by l.id, a.id;
