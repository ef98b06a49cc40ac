-- trace: golden/json/json_thread_slices.json
-- B/E, X nesting and overlap, E without B, E inside an X, unsorted input, args of E joining
-- B's, no name.
select s.id, s.ts, s.dur, s.name, s.category, s.depth, s.parent_id, t.type, th.tid,
       (select group_concat(key || '=' || display_value, ' ') from args a
        where a.arg_set_id = s.arg_set_id) as args
from slice s join thread_track t on s.track_id = t.id join thread th using (utid)
order by s.id;
select name, value from stats where value > 0 order by name;
