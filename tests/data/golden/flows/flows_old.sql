SELECT f.id, so.name AS out_name, si.name AS in_name FROM flow f
JOIN slice so ON f.slice_out = so.id JOIN slice si ON f.slice_in = si.id ORDER BY f.id;
SELECT id FROM following_flow(0) ORDER BY id;
SELECT id FROM preceding_flow(6) ORDER BY id;
SELECT id FROM directly_connected_flow(1) ORDER BY id;
SELECT name FROM descendant_slice(1);
SELECT name, depth FROM ancestor_slice(2);
SELECT s.name, (SELECT COUNT(*) FROM following_flow(s.id)) AS following FROM slice s ORDER BY s.id;
