-- trace: golden/json/json_metadata.json
-- M names (last one wins), one thread per (pid, tid) pair, pid and tid given as strings
-- (sort indexes and labels: json_metadata_args.sql).
select s.name, th.tid, th.name as thread, th.is_main_thread, p.pid, p.name as process
from slice s join thread_track t on s.track_id = t.id join thread th using (utid)
join process p using (upid) order by s.ts, s.name;
