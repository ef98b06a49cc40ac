SELECT so.name AS out, si.name AS "in", f.trace_id FROM flow f JOIN slice so ON so.id = f.slice_out
JOIN slice si ON si.id = f.slice_in ORDER BY f.id;
SELECT name, value FROM stats WHERE name LIKE 'flow%' AND value > 0 ORDER BY name;
