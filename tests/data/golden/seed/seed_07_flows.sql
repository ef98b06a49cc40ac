-- trace: seed/07_flows.pbtxt
SELECT f.id, so.name AS out_name, si.name AS in_name FROM flow f
JOIN slice so ON f.slice_out = so.id JOIN slice si ON f.slice_in = si.id ORDER BY f.id;
SELECT id, slice_out, slice_in FROM directly_connected_flow(1) ORDER BY id;
SELECT id FROM following_flow(2);
SELECT id FROM preceding_flow(2) ORDER BY id;
SELECT utid, tid, name, upid, is_main_thread FROM thread ORDER BY utid;
