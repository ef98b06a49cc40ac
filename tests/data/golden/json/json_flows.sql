-- trace: golden/json/json_flows.json
-- Flows: s/t/f with binding point "e", f binding to the next slice, v2 bind_id flow_out/flow_in.
select f.slice_out, so.name as out_name, f.slice_in, si.name as in_name, f.trace_id
from flow f join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in
order by f.slice_out, f.slice_in;
select name, value from stats where value > 0 order by name;
-- A flow with a v1 id carries its name and category as args, as Perfetto's flow tracker adds
-- them (also to a v2 flow whose bind id equals a v1 flow's number).
SELECT f.id, f.trace_id, a.key, a.display_value FROM flow f JOIN args a USING (arg_set_id)
ORDER BY f.id, a.id;
