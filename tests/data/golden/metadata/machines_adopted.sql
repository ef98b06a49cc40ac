-- A trace whose first packet has a machine_id: the host row (0) takes it, label_index from 1.
SELECT id, raw_id, label_index, sysname FROM machine;
SELECT t.name, t.type, t.machine_id, count(s.id) AS events FROM track t
  LEFT JOIN slice s ON s.track_id = t.id GROUP BY t.id ORDER BY t.machine_id, events;
SELECT tid, name, machine_id FROM thread ORDER BY machine_id, tid;
SELECT pid, name, machine_id FROM process ORDER BY machine_id, pid;
