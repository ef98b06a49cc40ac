select t.tid, p.pid, p.name as pname, t.name as tname, t.is_main_thread, pp.pid as ppid
from thread t left join process p using (upid) left join process pp on pp.upid = p.parent_upid
where t.tid >= 500 order by t.tid;
