#!/usr/bin/env bash
# The ring buffer decoder against the kernel's own text (root and tracefs; skipped otherwise):
# the same recording read as tracefs' `trace` file and then, raw, by `trak probes --drain`
# (both full and compact sched) gives the same events: per CPU the same names, pids and
# timestamps (the text's microseconds are the raw nanoseconds rounded), and the same value for
# every field the text prints as name=value, for every event type of the set below that fired.
set -euo pipefail
. "$(dirname "$0")/probes_common.bash"
EVENTS=sched/sched_switch,sched/sched_waking,sched/sched_wakeup,sched/sched_wakeup_new
EVENTS+=,sched/sched_process_exit,sched/sched_process_free,sched/sched_process_fork
EVENTS+=,task/task_newtask,task/task_rename,power/cpu_frequency,power/cpu_idle
EVENTS+=,power/suspend_resume,ftrace/print,sched/sched_blocked_reason
EVENTS+=,irq/irq_handler_entry,irq/irq_handler_exit,irq/softirq_entry,irq/softirq_exit
EVENTS+=,sched/sched_stat_runtime,timer/hrtimer_expire_entry
# Events this machine surely fires (the others are compared when they fire).
MUST="sched_switch sched_waking sched_wakeup_new sched_process_exit sched_process_free
      sched_process_fork task_newtask task_rename print softirq_entry sched_stat_runtime"

record() { # fills the kernel buffers, then reads them as text ($1.txt) and raw ($1.pb)
  echo 0 > $TRACEFS/tracing_on
  echo boot > $TRACEFS/trace_clock
  echo 1024 > $TRACEFS/buffer_size_kb
  echo > $TRACEFS/trace
  for e in ${EVENTS//,/ }; do
    [ -e $TRACEFS/events/$e/enable ] && echo 1 > $TRACEFS/events/$e/enable
  done
  echo 1 > $TRACEFS/tracing_on
  "$SCHED_WORKLOAD" > /dev/null
  for _ in 1 2 3; do /bin/true; done
  bash -c 'printf trak_renamed > /proc/$$/comm; echo "trak marker" > '$TRACEFS'/trace_marker'
  echo 0 > $TRACEFS/tracing_on
  cat $TRACEFS/trace > "$TMP/$1.txt"
  "$TRAK" probes --drain "$TMP/$1.pb" --events "$EVENTS" $2 2> "$TMP/drain.log" ||
    fail "drain: $(cat "$TMP/drain.log")"
  restore_found
  echo > $TRACEFS/trace
  "$TRAK" dump "$TMP/$1.pb" > "$TMP/$1.dump"
}

for form in full compact; do
  record $form "$([ $form = compact ] && echo --compact-sched || true)"
  python3 - "$TMP/$form.txt" "$TMP/$form.dump" "$MUST" <<'PY' || fail "$form"
import re, sys
from collections import Counter
from ftrace_trace import packets, events
LINE = re.compile(r'^\s*(.*)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): (\w+): (.*)$')
text = []
for ln in open(sys.argv[1]):
    m = LINE.match(ln)
    if m:
        text.append(dict(cpu=int(m.group(3)), us=int(m.group(4)) * 10**6 + int(m.group(5)),
                         name=m.group(6), pid=int(m.group(2)), rest=m.group(7)))
raw = events(packets(sys.argv[2]))
for t in text:  # the text names trace_marker writes after their tracepoint
    if t['name'] == 'tracing_mark_write':
        t['name'] = 'print'
tk = Counter((t['cpu'], t['us'], t['name']) for t in text)
rk = Counter((e['cpu'], (e['ts'] + 500) // 1000, e['name']) for e in raw)
missing, extra = tk - rk, rk - tk
assert not missing and not extra, 'text only: %s; raw only: %s' % (list(missing)[:5], list(extra)[:5])
# The pid of the running task (absent from compact entries).
tp = Counter((t['cpu'], t['us'], t['name'], t['pid']) for t in text)
rp = Counter((e['cpu'], (e['ts'] + 500) // 1000, e['name'], e['pid']) for e in raw
             if e['pid'] is not None)
assert not rp - tp, 'pids differ: %s' % list(rp - tp)[:5]
names = Counter(t['name'] for t in text)
for n in sys.argv[3].split():
    assert names[n] > 0, 'no %s event recorded' % n
# Field values: every name=value the text prints for a field the raw event has.
by = {}
for e in raw:
    by.setdefault((e['cpu'], (e['ts'] + 500) // 1000, e['name']), []).append(e)
checked = 0
for t in text:
    cands = by[(t['cpu'], t['us'], t['name'])]
    tf = dict(re.findall(r'(\w+)=(\S+)', t['rest']))
    ok = False
    for e in cands:
        same = True
        for k, v in e['fields'].items():
            if k not in tf or isinstance(v, str) and ' ' in v:
                continue
            tv = tf[k]
            if isinstance(v, int):
                if not re.fullmatch(r'-?(0x)?[0-9a-f]+', tv) or re.fullmatch(r'[0-9a-f]{16}', tv):
                    continue  # printed symbolically (prev_state=S) or as a hashed pointer
                # Decimal, or hexadecimal (clone_flags, irq handlers' %lx)
                same &= (re.fullmatch(r'-?\d+', tv) and int(tv) == v) or int(tv, 16) == v
            else:
                same &= tv == v
        ok |= same
    assert ok, 'fields differ: %r vs %r' % (t, [e['fields'] for e in cands])
    checked += 1
print(sys.argv[2], 'ok:', len(text), 'events,', dict(names))
PY
done
check_restored "after the drains"
echo "probes_text ok"
