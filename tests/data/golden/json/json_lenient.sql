-- trace: golden/json/json_lenient.json
-- Perfetto's lenient JSON reading: ph's first letter, string ts/dur/tts/tdur, trailing commas,
-- tid 0 or no tid as the pid, fractional microseconds rounded, bad events counted.
select s.name, s.ts, s.dur, s.thread_ts, s.thread_dur, th.tid, p.pid,
       (select group_concat(key || '=' || display_value, ' ') from args a
        where a.arg_set_id = s.arg_set_id) as args
from slice s join thread_track t on s.track_id = t.id join thread th using (utid)
join process p using (upid) order by s.ts;
select name, value from stats where value > 0 order by name;
