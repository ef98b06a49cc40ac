-- trace: golden/json/json_async.json
-- Nestable async b/e/n keyed by category and id, id2 local (per process) and global, S/T/p/F
-- skipped, scope ignored; ids whose first events share a name reuse a track no other id holds
-- open (req 102 takes req 100's track), as Perfetto's track compressor.
select s.ts, s.dur, s.name, s.category, s.depth, s.track_id, t.name as track, t.type,
       (select upid from process_track where id = t.id) as upid,
       (select group_concat(key || '=' || display_value, ' ') from args a
        where a.arg_set_id = s.arg_set_id) as args
from slice s join track t on s.track_id = t.id order by s.ts;
select name, value from stats where value > 0 order by name;
