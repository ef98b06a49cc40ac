-- trace: golden/json/json_identity.json
-- JSON threads and processes as Perfetto keeps them: the idle rows (utid 0, upid 0) stay
-- unnamed and apart; pid 0 / tid 0 events make a process and thread of their own; a process
-- comes with its main thread; threads are told apart by (pid, tid).
select utid, tid, name, upid, is_main_thread from thread order by utid;
select upid, pid, name from process order by upid;
select s.name, th.utid from slice s join thread_track t on s.track_id = t.id join thread th using (utid) order by s.ts;
