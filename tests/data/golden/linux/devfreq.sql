-- devfreq_frequency counters and the linux.devfreq module; trace_processor_shell v58.2's
-- answers.
SELECT t.id, t.name, t.type, extract_arg(t.dimension_arg_set_id, 'linux_device') AS dev, c.ts, c.value FROM counter_track t JOIN counter c ON c.track_id = t.id ORDER BY t.id, c.ts;
SELECT name, count(*) AS n FROM ftrace_event GROUP BY name ORDER BY name;
INCLUDE PERFETTO MODULE linux.devfreq; SELECT id, ts, dur, dsu_freq FROM linux_devfreq_dsu_counter ORDER BY ts;
INCLUDE PERFETTO MODULE linux.devfreq; SELECT id, ts, dur, freq FROM _get_devfreq_counters('*bci') ORDER BY ts;
