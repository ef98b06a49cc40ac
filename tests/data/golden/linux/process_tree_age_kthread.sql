select pid, start_ts, name, cmdline, extract_arg(arg_set_id, 'is_kthread') as is_kthread
from process where pid in (2, 41, 1200, 1300) order by pid;
