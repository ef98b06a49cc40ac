SELECT f.id, o.name AS out_name, o.ts AS out_ts, i.name AS in_name, i.ts AS in_ts, f.trace_id
FROM flow f JOIN slice o ON f.slice_out = o.id JOIN slice i ON f.slice_in = i.id ORDER BY f.id;
