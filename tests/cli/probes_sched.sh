#!/usr/bin/env bash
# `trak record --sched` with `trak probes` (root and tracefs; skipped otherwise): a program with
# known threads (tests/support/sched_workload.c) recorded with its sched events, in full and in
# the compact form. Each thread is switched in and out under its name and tid, the sleeper's
# sleeps are non-running intervals ending in a wakeup, the process tree names the threads, and
# tracefs is as it was afterwards.
set -euo pipefail
. "$(dirname "$0")/probes_common.bash"
start_daemon
start_probes
# A process whose command line is longer than a shared-memory chunk: the tree keeps the first
# 1024 bytes (the packet holding it was lost whole before).
(exec -a "sleep$(printf 'a%.0s' $(seq 5000))" sleep 60) & LONG=$!; pids+=($LONG)

# One recording per form; a recording whose check fails is made once more (noted), as a full
# `make test` run showed, rarely, a --sched recording without a switch into the workload's threads
# that no rerun reproduced; a second failure fails the test.
for form in --full-sched --sched --sched-again; do
  if [ "$form" = --sched-again ]; then
    [ -n "${retry:-}" ] || continue
    form=$retry
  fi
  "$TRAK" record $form --time 60s -o "$TMP/t.pb" 2> "$TMP/record.log" & rec=$!
  # The workload runs once the kernel records (slow to come on a loaded machine), and the
  # recording ends (SIGINT) once it has: a fixed --time could end before a late workload ran.
  wait_recording || fail "$form: the recording did not start: $(cat "$TMP/record.log")"
  sleep 1
  "$SCHED_WORKLOAD" > "$TMP/workload.out"
  sleep 0.5
  kill -INT $rec
  wait $rec || fail "$form: record: $(cat "$TMP/record.log")"
  check_restored "$form"
  "$TRAK" dump "$TMP/t.pb" > "$TMP/t.txt"
  read -r _ pid _ spin _ sleep < "$TMP/workload.out"
  python3 - "$TMP/t.txt" "$pid" "$spin" "$sleep" "$form" "$TMP/record.log" "$LONG" "$TMP/workload.out" <<'PY' > "$TMP/check.out" 2>&1 ||
import sys
from ftrace_trace import packets, events, one, read_by_cpu, kernel_losses
path, pid, spin, sleep, form = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5]
pk = packets(path)
ev = events(pk)
switches = [e for e in ev if e['name'] == 'sched_switch']
assert switches, 'no sched_switch at all'
# --sched writes the compact form (Perfetto's default), --full-sched one message per event.
compact = [e.get('compact', False) for e in switches]
assert all(compact) if form == '--sched' else not any(compact), (form, compact.count(True))
# Per CPU, who runs from each switch on (the compact form has no prev_pid: the previous
# switch's next_pid is it; the kernel itself skips a few switches of some threads).
names = {spin: 'trak_spin', sleep: 'trak_sleep'}
ins, outs = {spin: 0, sleep: 0}, {spin: [], sleep: []}
comms = {spin: set(), sleep: set()}
running = {}
for e in switches:
    f = e['fields']
    prev = f['prev_pid'] if 'prev_pid' in f else running.get(e['cpu'])
    if prev in outs:
        outs[prev].append((e['ts'], f['prev_state']))
    nxt = f['next_pid']
    if nxt in ins:
        ins[nxt] += 1
        comms[nxt].add(f['next_comm'])
    running[e['cpu']] = nxt
for t in (spin, sleep):
    # Named after their first run (a thread starts with its process's name).
    assert names[t] in comms[t] and comms[t] <= {names[t], 'sched_workload'}, \
        '%s (tid %d) switched in under %r; %d switches in the trace, %d per CPU %r; the ' \
        'kernel lost %r; events per CPU from..to ns %r, the workload ran %s' % (
            names[t], t, comms[t], len(switches), len(running),
            {c: sum(1 for e in switches if e['cpu'] == c) for c in running}, kernel_losses(pk),
            {c: (min(e['ts'] for e in ev if e['cpu'] == c), max(e['ts'] for e in ev if e['cpu'] == c))
             for c in running}, open(sys.argv[8]).read().split('\n')[1])
    assert ins[t] >= 1 and outs[t], '%s: %d switches in, %d out' % (names[t], ins[t], len(outs[t]))
# The sleeper's three sleeps: switched out sleeping (state S = 1), not running for >= 70 ms
# (80 ms asked), then woken.
sleeps = 0
for ts, state in outs[sleep]:
    if state & 1:
        later = [e['ts'] for e in switches if e['fields']['next_pid'] == sleep and e['ts'] > ts]
        if later and later[0] - ts >= 70e6:
            sleeps += 1
# The compact form names no prev_pid, so a switch the kernel skipped hides the switch out
# above; the gaps of >= 70 ms between the sleeper's switches in show the same sleeps.
ins_at = sorted(e['ts'] for e in switches if e['fields']['next_pid'] == sleep)
gaps = sum(1 for a, b in zip(ins_at, ins_at[1:]) if b - a >= 70e6)
# This machine's kernel does not trace every switch: a switch out of the idle task, on a CPU
# the sleeper's timer wakes from idle, is often missing (in the kernel's own `trace` text too;
# Perfetto's recorder, tracebox, sees the same: its trace processor counts
# mismatched_sched_switch_tids on a recording here, as trak's does, more on an idle machine).
# The wakings, made in the timer's interrupt, are traced: each sleep ends in one, >= 70 ms
# after the sleeper's previous waking (by the barrier, or at the end of its previous sleep).
wakes = [e for e in ev if e['name'] == 'sched_waking' and e['fields']['pid'] == sleep]
assert len(wakes) >= 3, '%d wakings of the sleeper' % len(wakes)
wakes_at = sorted(e['ts'] for e in wakes)
wake_gaps = sum(1 for a, b in zip(wakes_at, wakes_at[1:]) if b - a >= 70e6)
sleeps = max(sleeps, gaps, wake_gaps)
# Two of the three must show (the first sleep's waking has no earlier one when the barrier
# did not put the sleeper to sleep); fewer than three is reported.
assert sleeps >= 2, 'only %d of 3 sleeps of the sleeper seen' % sleeps
if sleeps < 3:
    print('note: %d of 3 sleeps of the sleeper seen (a skipped switch merges two)' % sleeps)
# The spinner is preempted or runs to its end, never sleeps in its spins.
# The process tree: the program and its threads by name.
threads = {one(t, 'tid'): one(t, 'name') for p in pk for tr in p.get('process_tree', [])
           for t in tr.get('threads', [])}
procs = {one(q, 'pid') for p in pk for tr in p.get('process_tree', []) for q in tr.get('processes', [])}
assert procs, 'no process tree'
long_cmd = [q.get('cmdline', []) for p in pk for tr in p.get('process_tree', [])
            for q in tr.get('processes', []) if one(q, 'pid') == int(sys.argv[7])]
assert long_cmd == [['sleep' + 'a' * 1019]], long_cmd
# The workload started after the snapshot: the tree has the recorder and probes themselves
# (its last packets, the newest pids, were the ones lost when ftrace's first drain filled the
# shared buffer: the tree now waits for room).
assert threads, 'no thread in the process tree'
trees = [tr for p in pk for tr in p.get('process_tree', [])]
assert any(n == 'trak' for n in threads.values()), \
    'no trak thread in the process tree: %d tree packets, %d processes (pids %d..%d), %d ' \
    'threads; recorder: %s' % (len(trees), len(procs), min(procs), max(procs), len(threads),
                               open(sys.argv[6]).read().strip().replace('\n', ' | '))
# Nothing lost between the kernel and the trace: every event the kernel handed out before the
# end stats is there, per CPU.
got, read = read_by_cpu(pk, ev)
assert all(got.get(c, 0) >= n for c, n in read.items()), \
    'read by the kernel %r, in the trace %r' % (read, got)
assert any(p.get('system_info') for p in pk) and any(p.get('cpu_info') for p in pk), 'no system info'
print(form, 'ok:', len(ev), 'events,', ins[spin], ins[sleep], 'switches in,', sleeps, 'sleeps')
PY
  {
    cat "$TMP/check.out"
    [ -z "${retry:-}" ] || fail "$form, after one recording already made again: $(cat "$TMP/probes.log")"
    echo "note: $form: the check failed once; recording again"
    retry=$form
    continue
  }
  cat "$TMP/check.out"
done
kill "$PROBES"; wait "$PROBES" || true
check_restored "after probes"
echo "probes_sched ok"
