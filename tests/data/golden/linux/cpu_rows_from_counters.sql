-- Perfetto's answer (trace_processor_shell v58.2 on the same trace): the cpu table has a row
-- for each CPU of a counter track, not only for the CPUs that recorded events.
SELECT ucpu, cpu FROM cpu WHERE cpu IS NOT NULL ORDER BY ucpu;
SELECT t.name, t.type, c.ts, c.value FROM counter c JOIN track t ON c.track_id = t.id
ORDER BY c.ts;
