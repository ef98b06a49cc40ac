SELECT id, ts, dur, name, thread_ts, thread_dur, thread_instruction_count,
       thread_instruction_delta FROM slice ORDER BY id;
SELECT c.ts, t.name, t.type, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY c.ts, t.name;
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
