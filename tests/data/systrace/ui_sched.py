#!/usr/bin/env python3
# Writes tests/data/systrace/ui_sched.systrace: a small made-up systrace text trace with scheduling
# data (two CPUs, six threads in three processes, sched_switch with S, D, R and R+ states,
# sched_waking from threads and from idle CPUs, sched_blocked_reason after D (IO or not),
# cpu_frequency, cpu_idle, atrace B/E slices) for the viewer's system-track tests (tests/ui/system_test.js).
# Deterministic: python3 ui_sched.py > ui_sched.systrace
import random
rnd = random.Random(7)
threads = {  # tid: (tgid, name, prio)
    100: (100, 'app', 120), 101: (100, 'app-worker', 120), 102: (100, 'app-render', 110),
    200: (200, 'logd', 130), 201: (200, 'logd.writer', 130), 300: (300, 'kworker/0:1', 120),
}
lines = []
def emit(ts, cpu, tid, event, args):
    if tid == 0:
        task, tg = '<idle>', '-----'
    else:
        task, tg = threads[tid][1], '%5d' % threads[tid][0]
    lines.append('%16s-%-5d (%s) [%03d] d..3 %12.6f: %s: %s' % (task, tid, tg, cpu, ts, event, args))
def comm(tid):
    return 'swapper/%d' % 0 if tid == 0 else threads[tid][1]
cur = {0: 0, 1: 0}
state = {t: 'S' for t in threads}
open_slice = {}
blocked = [0]
t = 1.0
emit(t, 0, 0, 'cpu_frequency', 'state=1200000 cpu_id=0')
emit(t, 1, 0, 'cpu_frequency', 'state=1200000 cpu_id=1')
def switch(ts, cpu, nxt, prev_state):
    prev = cur[cpu]
    if prev and prev in open_slice and rnd.random() < 0.8:
        emit(ts - 0.000002, cpu, prev, 'tracing_mark_write', 'E|%d' % threads[prev][0]); del open_slice[prev]
    ps = prev_state if prev else 'R'
    emit(ts, cpu, prev, 'sched_switch', 'prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d next_prio=%d' % (
        comm(prev) if prev else 'swapper/%d' % cpu, prev, threads[prev][2] if prev else 120, ps,
        comm(nxt) if nxt else 'swapper/%d' % cpu, nxt, threads[nxt][2] if nxt else 120))
    if prev and prev_state == 'D':  # why it blocked: IO or not, alternately (no random draw)
        blocked[0] += 1
        emit(ts, cpu, nxt, 'sched_blocked_reason', 'pid=%d iowait=%d caller=%s' % (
            prev, blocked[0] % 2, 'io_schedule+0x12/0x40' if blocked[0] % 2 else 'mutex_lock+0x1c/0x40'))
    if prev: state[prev] = 'R' if prev_state.startswith('R') else 'S'
    if nxt: state[nxt] = 'Run'
    if prev == 0 and nxt:
        emit(ts - 0.000001, cpu, 0, 'cpu_idle', 'state=4294967295 cpu_id=%d' % cpu)
    if nxt == 0:
        emit(ts + 0.000001, cpu, 0, 'cpu_idle', 'state=1 cpu_id=%d' % cpu)
    cur[cpu] = nxt
    if nxt and nxt not in open_slice and rnd.random() < 0.7:
        name = rnd.choice(['draw', 'layout', 'flush', 'compute'])
        emit(ts + 0.000003, cpu, nxt, 'tracing_mark_write', 'B|%d|%s' % (threads[nxt][0], name)); open_slice[nxt] = name
for step in range(260):
    t += rnd.uniform(0.0002, 0.0012)
    cpu = rnd.choice([0, 1])
    running = set(cur.values())
    sleeping = [x for x in threads if state[x] == 'S']
    runnable = [x for x in threads if state[x] == 'R' and x not in running]
    if cur[cpu] and sleeping and rnd.random() < 0.45:
        w = rnd.choice(sleeping)
        emit(t, cpu, cur[cpu], 'sched_waking', 'comm=%s pid=%d prio=%d success=1 target_cpu=%03d' % (comm(w), w, threads[w][2], rnd.choice([0, 1])))
        state[w] = 'R'
    elif not cur[cpu] and sleeping and not runnable and rnd.random() < 0.5:
        w = rnd.choice(sleeping)  # a wakeup from an interrupt on an idle CPU
        emit(t, cpu, 0, 'sched_waking', 'comm=%s pid=%d prio=%d success=1 target_cpu=%03d' % (comm(w), w, threads[w][2], cpu))
        state[w] = 'R'
    elif runnable and (not cur[cpu] or rnd.random() < 0.3):
        switch(t, cpu, rnd.choice(runnable), rnd.choice(['R', 'R+']))
    elif cur[cpu]:
        switch(t, cpu, runnable[0] if runnable else 0, rnd.choice(['S', 'S', 'S', 'D']))
    if step % 25 == 0:
        for c in (0, 1):
            emit(t + 0.000004 * (c + 1), c, cur[c], 'cpu_frequency', 'state=%d cpu_id=%d' % (rnd.choice([600000, 1200000, 1800000, 2400000]), c))
lines.sort(key=lambda l: float(l.split(': ')[0].split()[-1]))
print('# tracer: nop\n#\n#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n#              | |        |      |   ||||       |         |')
print('\n'.join(lines))
