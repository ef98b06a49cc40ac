#!/usr/bin/env python3
# Writes tests/data/linux/ui_big_little.pbtxt: a small made-up protobuf text trace of four CPUs
# in two clusters (cpu_info: CPUs 0 and 1 of capacity 512, the little ones; 2 and 3 of 1024, the
# big ones) with scheduling (sched_switch between five threads and the idle task, some stretches
# idle) on each, for the viewer's active CPU count per CPU type (tests/ui/big_little_test.js).
# Deterministic: python3 ui_big_little.py > ui_big_little.pbtxt
import random
rnd = random.Random(5)
threads = {0: 'swapper', 20: 'render', 21: 'audio', 22: 'net', 23: 'gc', 24: 'ui'}
out = ['# Made up by ui_big_little.py: four CPUs, two clusters (little 0-1, big 2-3), five threads.']
out.append('packet { trusted_packet_sequence_id: 1 timestamp: 900000 cpu_info { '
           'cpus { processor: "little" capacity: 512 } cpus { processor: "little" capacity: 512 } '
           'cpus { processor: "big" capacity: 1024 } cpus { processor: "big" capacity: 1024 } } }')
for cpu in range(4):
    out.append('packet { trusted_packet_sequence_id: 2 ftrace_events { cpu: %d' % cpu)
    ts, cur = 1000000 + cpu * 7000, 0
    for step in range(80):
        ts += rnd.randrange(20000, 90000)
        # The idle task a third of the time, so that the counts go up and down.
        nxt = 0 if cur and rnd.random() < 0.35 else rnd.choice([t for t in threads if t not in (0, cur)])
        prev_name = 'swapper/%d' % cpu if cur == 0 else threads[cur]
        next_name = 'swapper/%d' % cpu if nxt == 0 else threads[nxt]
        out.append('  event { timestamp: %d pid: %d sched_switch { prev_comm: "%s" prev_pid: %d '
                   'prev_prio: 120 prev_state: %d next_comm: "%s" next_pid: %d next_prio: 120 } }'
                   % (ts, cur, prev_name, cur, 1 if cur else 0, next_name, nxt))
        cur = nxt
    out.append('} }')
print('\n'.join(out))
