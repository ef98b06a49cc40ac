-- thermal_exynos_acpm_bulk: current_temp on "<zone> Temperature" (type acpm_thermal_temperature)
-- and cdev_state on "Tj-<zone> Cooling Device" (acpm_cooling_device_counter) at the time the
-- event holds (its raw row at the event's own), arg thermal_zone_id; _high_overhead the same at
-- the event's time; a tz_id past AUR (6) counts ftrace_thermal_exynos_acpm_unknown_tz_id. The
-- same as trace_processor_shell v58.2.
SELECT t.name, t.type, c.ts, c.value, extract_arg(c.arg_set_id, 'thermal_zone_id') AS tz FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts, t.id;
SELECT ts, name FROM ftrace_event ORDER BY ts;
SELECT name, value FROM stats WHERE name = 'ftrace_thermal_exynos_acpm_unknown_tz_id';
