-- sched_cpu_util_cfs: cpu_util, capacity and nr_running on the CPU's (the event's cpu field, not
-- the CPU that recorded it) "Cpu N Util", "Cpu N Cap" and "Cpu N Nr Running" counter tracks
-- (types cpu_utilization, cpu_capacity, cpu_nr_running), an absent field 0. The same as
-- trace_processor_shell v58.2.
SELECT t.name, t.type, c.ts, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts, t.id;
SELECT ct.name, ct.cpu FROM cpu_counter_track ct ORDER BY ct.id;
