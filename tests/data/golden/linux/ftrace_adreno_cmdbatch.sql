-- kgsl_adreno_cmdbatch_*: a retired batch is a slice "GPU" from its start on the GPU (ticks of
-- 19.2 MHz turned into trace time by the sync event of the same timestamp, read before or
-- after it, from another CPU's bundle too) for its run time, on a lane of "GPU <process>
-- (Ctx=<id>, Prio=<prio>)" (type adreno_gpu_cmdbatch), the process that of the thread that
-- queued the context ("GPU (Ctx=..)" without a name); overlapping batches take another lane,
-- one retired before it started makes none; the raw rows keep the events' own times. The same
-- as trace_processor_shell v58.2.
SELECT s.ts, s.dur, s.name, t.name AS track, t.type FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts, t.name;
SELECT ts, name FROM ftrace_event ORDER BY ts, id;
