-- funcgraph_entry / funcgraph_exit: a slice named by the function (its address as "0x..." when
-- the trace has no kernel symbols) on the thread's "Funcgraph" track (type thread_funcgraph);
-- the idle task's (pid 0) on the CPU's "swapper0 -funcgraph" (type cpu_funcgraph). The same as
-- trace_processor_shell v58.2.
SELECT s.ts, s.dur, s.name, s.depth, t.name AS track, t.type FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
SELECT tt.name, th.tid FROM thread_track tt JOIN thread th USING (utid) ORDER BY tt.id;
