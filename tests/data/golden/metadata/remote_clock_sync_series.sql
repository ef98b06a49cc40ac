-- Remote machines with several syncs each, out of order on machine 1 and in order (with a tie)
-- on machine 2 (see the trace's comment). The same as trace_processor_shell v58.2.
SELECT t.name, c.ts, c.value, t.machine_id FROM counter c JOIN counter_track t ON t.id = c.track_id ORDER BY t.machine_id, c.ts, c.value;
