-- ion_stat: total_allocated on the global "mem.ion" counter (type ion), len on the writing
-- thread's "mem.ion_change" (type ion_change), and each buffer a slice "<len / 1024> kB" from
-- its allocation (len > 0) to its free on a lane of "mem.ion_buffer" (type
-- android_ion_allocations; a freed buffer's lane is taken by the next). The same as
-- trace_processor_shell v58.2.
SELECT t.name, t.type, c.ts, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts, t.id;
SELECT s.ts, s.dur, s.name, t.name AS track, t.type FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
SELECT t.name, th.tid FROM thread_counter_track t JOIN thread th USING (utid) ORDER BY t.id;
