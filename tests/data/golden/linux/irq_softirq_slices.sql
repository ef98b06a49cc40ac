-- Perfetto's answer (trace_processor_shell v58.2 on the same trace): irq and softirq slices on
-- per-CPU tracks with the exit's ret or vec as an arg, the cpu rows of those CPUs, and the
-- ftrace_event rows every event keeps.
SELECT s.ts, s.dur, s.name, s.category, s.depth, t.name AS track, t.type,
  (SELECT group_concat(key || '=' || coalesce(string_value, int_value), ',') FROM args a
   WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN track t ON s.track_id = t.id
ORDER BY s.ts;
SELECT cpu FROM cpu WHERE cpu IS NOT NULL ORDER BY cpu;
SELECT name, count(*) AS n FROM ftrace_event GROUP BY name ORDER BY name;
SELECT name, value FROM stats WHERE name = 'misplaced_end_event' OR name = 'end_unmatched';
