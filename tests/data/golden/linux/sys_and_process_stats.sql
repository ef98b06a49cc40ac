select t.type, t.name, c.ts, c.value, extract_arg(t.dimension_arg_set_id, 'upid') as upid,
  extract_arg(t.dimension_arg_set_id, 'cpu') as cpu, extract_arg(t.dimension_arg_set_id, 'irq') as irq
from counter c join track t on c.track_id = t.id order by t.type, t.name, c.ts, cpu, upid;
select utid, tid, upid from thread order by utid;
select upid, pid, start_ts from process order by upid;
select name, value from stats where value <> 0 and name not in ('clock_sync_cache_miss', 'guess_trace_type_duration_ns', 'parse_trace_duration_ns') order by name;
select start_ts, end_ts from trace_bounds;
