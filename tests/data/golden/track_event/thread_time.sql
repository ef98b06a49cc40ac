SELECT name, ts, dur, thread_ts, thread_dur, thread_instruction_count FROM slice ORDER BY id;
SELECT t.name, t.type, COUNT(*) AS n, MAX(c.value) AS last FROM counter c
JOIN counter_track t ON c.track_id = t.id GROUP BY t.id;
