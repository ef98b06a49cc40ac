-- trace: golden/json/json_flow_binding.json
-- JSON flows bound as Perfetto's flow tracker binds them: an ended X still encloses flow
-- events until the next slice, flow ends do not close a flow, a second start is ignored,
-- f without bp "e" binds to the next slice, v2 flow_in+flow_out steps.
select so.name as out_name, si.name as in_name, f.trace_id
from flow f join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in
order by f.id;
select name, value from stats where value > 0 order by name;
