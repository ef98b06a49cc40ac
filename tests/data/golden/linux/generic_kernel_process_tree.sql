-- GenericKernelProcessTree (TracePacket 122): processes with a command line get their parent
-- (ppid 0: the idle process) and their name (the command line up to its first space); a process
-- without one is skipped; no main thread is made for a process, each thread says whether it is
-- its process's main thread or an idle thread, and joins its process (made bare when unknown).
-- A tree after queued task events is applied in timestamp order with them (the second one
-- renames tid 45 at process-tree priority). The same as trace_processor_shell v58.2.
SELECT upid, pid, name, parent_upid, cmdline FROM process ORDER BY upid;
SELECT utid, tid, name, upid, is_main_thread, is_idle FROM thread ORDER BY utid;
SELECT ts, dur, utid, end_state FROM sched_slice ORDER BY id;
