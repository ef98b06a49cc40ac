-- trace: golden/json/json_counters.json
-- C events: one process counter track per args key ("name key", "name id: N key").
select c.ts, c.value, t.name, t.type, p.pid
from counter c join process_counter_track t on c.track_id = t.id join process p using (upid)
order by t.name, p.pid, c.ts;
select name, value from stats where value > 0 order by name;
