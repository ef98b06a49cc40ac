SELECT so.name AS out, si.name AS "in", f.trace_id, a.key, a.string_value FROM flow f
JOIN slice so ON so.id = f.slice_out JOIN slice si ON si.id = f.slice_in
LEFT JOIN args a ON a.arg_set_id = f.arg_set_id ORDER BY f.id, a.key;
SELECT name, value FROM stats WHERE name LIKE 'flow%' AND value > 0 ORDER BY name;
