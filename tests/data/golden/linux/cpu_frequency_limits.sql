-- Perfetto's answer (trace_processor_shell v58.2 on the same trace): a max and a min counter
-- per CPU, each event writing both.
SELECT t.type, t.name, c.ts, c.value, (SELECT count(*) FROM cpu) AS cpus,
  (SELECT count(*) FROM ftrace_event WHERE name = 'cpu_frequency_limits') AS raw
FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY t.type, t.name, c.ts;
