-- trace: golden/json/json_instants.json
-- Instants of scope t (default), p and g; R marks; an unknown scope is skipped.
select s.ts, s.dur, s.name, s.depth, t.type, (select utid from thread_track where id = t.id) as utid,
       (select upid from process_track where id = t.id) as upid,
       (select group_concat(key || '=' || display_value, ' ') from args a
        where a.arg_set_id = s.arg_set_id) as args
from slice s join track t on s.track_id = t.id order by s.ts;
select name, value from stats where value > 0 order by name;
