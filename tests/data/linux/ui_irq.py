#!/usr/bin/env python3
# Writes tests/data/linux/ui_irq.pbtxt: a small made-up protobuf text trace of two CPUs with
# scheduling (sched_switch between three threads and the idle task), hard interrupts
# (irq_handler_entry/exit, "IRQ (eth0)", "IRQ (virtio1-req.0)") and softirqs (softirq_entry/exit:
# NET_RX, TIMER, RCU) on each CPU, for the viewer's interrupt tracks (tests/ui/irq_test.js).
# Deterministic: python3 ui_irq.py > ui_irq.pbtxt
import random
rnd = random.Random(3)
threads = {0: 'swapper', 10: 'net', 11: 'disk', 12: 'ui'}
out = ['# Made up by ui_irq.py: two CPUs, three threads, interrupts and softirqs on both CPUs.']
for cpu in (0, 1):
    events = []
    ts, cur = 1000000, 0
    for step in range(60):
        ts += rnd.randrange(60000, 160000)
        nxt = rnd.choice([t for t in threads if t != cur])
        prev_name = 'swapper/%d' % cpu if cur == 0 else threads[cur]
        next_name = 'swapper/%d' % cpu if nxt == 0 else threads[nxt]
        events.append((ts, cur, 'sched_switch { prev_comm: "%s" prev_pid: %d prev_prio: 120 prev_state: %d '
                       'next_comm: "%s" next_pid: %d next_prio: 120 }' % (prev_name, cur, 1 if cur else 0, next_name, nxt)))
        cur = nxt
        # An interrupt inside most running stretches, a softirq after it.
        if rnd.random() < 0.7:
            irq, name = rnd.choice([(25, 'virtio1-req.0'), (3, 'eth0')])
            a = ts + rnd.randrange(2000, 8000)
            b = a + rnd.randrange(15000, 45000)
            events.append((a, cur, 'irq_handler_entry { irq: %d name: "%s" handler: 0 }' % (irq, name)))
            events.append((b, cur, 'irq_handler_exit { irq: %d ret: 1 }' % irq))
            vec = 3 if irq == 3 else rnd.choice([1, 9])
            c = b + rnd.randrange(500, 2000)
            d = c + rnd.randrange(8000, 30000)
            events.append((c, cur, 'softirq_entry { vec: %d }' % vec))
            events.append((d, cur, 'softirq_exit { vec: %d }' % vec))
    out.append('packet { trusted_packet_sequence_id: 1 ftrace_events { cpu: %d' % cpu)
    for ts, pid, ev in sorted(events, key=lambda e: e[0]):
        out.append('  event { timestamp: %d pid: %d %s }' % (ts, pid, ev))
    out.append('} }')
# System counters every 2 ms: meminfo, vmstat, /proc/stat times per CPU, forks.
user, sys_ns = [0, 0], [0, 0]
for i, ts in enumerate(range(1500000, 8000000, 2000000)):
    cpus = []
    for cpu in (0, 1):
        user[cpu] += rnd.randrange(100000, 900000)
        sys_ns[cpu] += rnd.randrange(50000, 300000)
        cpus.append('cpu_stat { cpu_id: %d user_ns: %d system_mode_ns: %d }' % (cpu, user[cpu], sys_ns[cpu]))
    out.append('packet { trusted_packet_sequence_id: 2 timestamp: %d sys_stats { '
               'meminfo { key: MEMINFO_MEM_TOTAL value: 4000000 } meminfo { key: MEMINFO_MEM_FREE value: %d } '
               'vmstat { key: VMSTAT_NR_FREE_PAGES value: %d } %s num_forks: %d } }'
               % (ts, 1000000 - i * 20000, 250000 - i * 5000, ' '.join(cpus), 100 + i))
print('\n'.join(out))
