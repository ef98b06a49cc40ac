SELECT c.ts, t.name, t.type, p.pid, c.value FROM counter c JOIN process_counter_track t ON c.track_id = t.id JOIN process p USING (upid) ORDER BY c.ts, t.name, p.pid;
SELECT p.pid, p.name, a.key, a.display_value FROM process p JOIN args a USING (arg_set_id) ORDER BY p.pid, a.id;
SELECT name, severity, source, value FROM stats WHERE name = 'proc_stat_unknown_counters';
