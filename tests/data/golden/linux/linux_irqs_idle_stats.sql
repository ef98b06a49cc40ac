-- Expected output from trace_processor_shell v58.2 on this trace.
INCLUDE PERFETTO MODULE linux.irqs;
INCLUDE PERFETTO MODULE linux.cpu.idle_stats;
INCLUDE PERFETTO MODULE linux.cpu.idle_time_in_state;
SELECT ts, dur, name, parent_id IS NOT NULL AS nested, is_soft_irq FROM linux_irqs ORDER BY ts;
SELECT count(*) AS hard FROM linux_hard_irqs;
SELECT count(*) AS soft FROM linux_soft_irqs;
SELECT count(*) AS mapped FROM linux_interrupt_mapping;
SELECT cpu, state, count, dur, avg_dur, printf('%.4f', idle_percent) AS idle_percent
FROM cpu_idle_stats ORDER BY cpu, state;
SELECT count(*) AS per_cpu FROM linux_per_cpu_idle_time_in_state_counters;
SELECT count(*) AS all_cpus FROM linux_cpu_idle_time_in_state_counters;
SELECT ts, dur, name, depth, cat FROM slices ORDER BY ts;
SELECT ts, value, name FROM counters ORDER BY ts, name;
