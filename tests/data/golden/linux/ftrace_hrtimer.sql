-- trace_processor_shell v58.2's answers (checked with scripts/oracle_diff.sh): hrtimer_expire_entry
-- begins a slice of category hrtimer on the CPU's "Hrtimer Cpu N" track (type cpu_hrtimer), named
-- by the callback's address as "%#x" (kernel symbols not read: "0" for 0);
-- hrtimer_expire_exit ends it; an exit with nothing open is ignored (not counted); the irq it ran in has
-- its own track. The tracks are slice tracks, not counter tracks.
SELECT s.ts, s.dur, s.name, s.category, s.depth, t.name AS track, t.type
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts, t.name;
SELECT id, name, type, extract_arg(dimension_arg_set_id, 'cpu') AS cpu FROM track ORDER BY id;
SELECT id, name, type FROM counter_track ORDER BY id;
SELECT name, count(*) AS n FROM ftrace_event GROUP BY name ORDER BY name;
SELECT name, value FROM stats WHERE name = 'misplaced_end_event';
