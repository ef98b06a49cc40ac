-- trace: linux/to_ftrace_events.pbtxt
-- to_ftrace(id): each ftrace_event row as the line tracefs prints ("TASK-TID (TGID) [CPU] ....
-- SECONDS.MICROS: EVENT: ARGS"): "<idle>" for tid 0, "<unknown>" for an unnamed thread, '-'
-- in the name as '_', "(-----)" without a process; print, g2d_ and dpu_tracing_mark_write as
-- tracing_mark_write; the layouts of the events Perfetto's systrace serializer models
-- (sched_switch, sched_wakeup, clocks, binder, filemap, workqueue, irq, softirq, atrace-style
-- markers, cgroup_attach_task, hrtimer, i2c), gfp_flags by flag names, prev_state and
-- gfp_flags in the kernel 4.4 layout whatever the trace's kernel (v58.2 reads no version
-- there), and every other event as key=value. The same as trace_processor_shell v58.2
-- (scripts/oracle_diff.sh), with Perfetto's cgroup_attach_task_*_print_systrace and
-- sched_blocked_reason_symbolized_to_systrace cases.
SELECT to_ftrace(id) AS line FROM ftrace_event ORDER BY id;
SELECT count(*) AS n FROM ftrace_event WHERE to_ftrace(id) GLOB '*sched_switch: prev_comm=*==> next_comm=*';
