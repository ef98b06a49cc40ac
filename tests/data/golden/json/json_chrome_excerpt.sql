-- trace: golden/json/json_chrome_excerpt.json
-- 60 events of a Chromium startup trace's browser process (args dropped, times shifted):
-- X events with flow s/f (bp "e") right after them at the same timestamp, flows whose start
-- lies before the excerpt. Expected answers are trace_processor_shell's.
select s.ts, s.dur, s.name, s.depth, th.tid from slice s
join thread_track t on s.track_id = t.id join thread th using (utid) order by s.ts, th.tid, s.depth;
select so.name as out_name, so.ts as out_ts, si.name as in_name, si.ts as in_ts, f.trace_id
from flow f join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in
order by f.id;
select name, value from stats where value > 0 order by name;
