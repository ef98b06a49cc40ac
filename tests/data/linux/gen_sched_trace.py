#!/usr/bin/env python3
"""Writes a scheduling trace as protobuf text for the goldens sched_regression_typed and
sched_regression_compact (tests/data/golden/linux/): 4 CPUs switching among 24 threads with a
sched_waking before most switches, timestamps on a 100 ns grid so that events of different CPUs
(and a CPU's switch and waking) often share a nanosecond, each CPU's bundles written in time
order but the CPUs' bundles interleaved so the trace is not sorted across bundles, some bundles
marked lost_events with events really missing (a switch whose prev is not the CPU's running
thread), a few task_renames (typed form). Deterministic (fixed seed).

    python3 gen_sched_trace.py typed   > ../golden/linux/sched_regression_typed.pbtxt
    python3 gen_sched_trace.py compact > ../golden/linux/sched_regression_compact.pbtxt
"""
import random
import sys

CPUS = 4
THREADS = 24
BUNDLES = 6  # per CPU
EVENTS = 24  # switches (and wakings) per bundle, at most


def comm(t):
    return "thr_%d" % t


def gen_cpu(rng, cpu):
    """The CPU's bundles: lists of events (ts, kind, fields) in time order."""
    ts = 1000 + rng.randrange(0, 5) * 100
    cur = cpu  # each CPU starts with its own thread running
    bundles = []
    for b in range(BUNDLES):
        evs = []
        lost = b in (2, 4) and cpu % 2 == b % 4 // 2
        for i in range(rng.randrange(EVENTS // 2, EVENTS + 1)):
            nxt = rng.randrange(THREADS)
            if nxt == cur:
                nxt = (nxt + 1) % THREADS
            ts += rng.choice((0, 100, 100, 200, 300))
            if rng.random() < 0.8:
                evs.append((ts, "waking", dict(pid=100 + nxt, comm=comm(nxt), prio=120,
                                               target_cpu=rng.randrange(CPUS),
                                               waker=100 + cur, flags=rng.choice((1, 9, 17)))))
                ts += rng.choice((0, 0, 100, 200))
            state = rng.choice((0, 1, 1, 2, 0x100))
            if lost and i == 3:
                cur = rng.randrange(THREADS)  # the events between were lost
            evs.append((ts, "switch", dict(prev_pid=100 + cur, prev_comm=comm(cur), prev_prio=120,
                                           prev_state=state, next_pid=100 + nxt,
                                           next_comm=comm(nxt), next_prio=110 + nxt % 20)))
            cur = nxt
            if rng.random() < 0.03:
                ts += rng.choice((0, 100))
                t = rng.randrange(THREADS)
                evs.append((ts, "rename", dict(pid=100 + t, oldcomm=comm(t),
                                               newcomm="ren_%d" % t, waker=100 + cur)))
        bundles.append((lost, evs))
    return bundles


def typed_event(ts, kind, f):
    if kind == "waking":
        # no common_flags: trace_processor_shell v58.2 adds a nameless ftrace_event row for
        # each typed event that has them
        return ('event { timestamp: %d pid: %d sched_waking { comm: "%s" '
                'pid: %d prio: %d success: 1 target_cpu: %d } }'
                % (ts, f["waker"], f["comm"], f["pid"], f["prio"], f["target_cpu"]))
    if kind == "rename":
        return ('event { timestamp: %d pid: %d task_rename { pid: %d oldcomm: "%s" '
                'newcomm: "%s" oom_score_adj: 0 } }'
                % (ts, f["waker"], f["pid"], f["oldcomm"], f["newcomm"]))
    return ('event { timestamp: %d pid: %d sched_switch { prev_comm: "%s" prev_pid: %d '
            'prev_prio: %d prev_state: %d next_comm: "%s" next_pid: %d next_prio: %d } }'
            % (ts, f["prev_pid"], f["prev_comm"], f["prev_pid"], f["prev_prio"],
               f["prev_state"], f["next_comm"], f["next_pid"], f["next_prio"]))


def compact(evs):
    names = []

    def idx(s):
        if s not in names:
            names.append(s)
        return names.index(s)

    sw = [e for e in evs if e[1] == "switch"]
    wk = [e for e in evs if e[1] == "waking"]

    def deltas(es):
        out, last = [], 0
        for e in es:
            out.append(e[0] - last)
            last = e[0]
        return out

    cols = [
        ("switch_timestamp", deltas(sw)),
        ("switch_prev_state", [e[2]["prev_state"] for e in sw]),
        ("switch_next_pid", [e[2]["next_pid"] for e in sw]),
        ("switch_next_prio", [e[2]["next_prio"] for e in sw]),
        ("switch_next_comm_index", [idx(e[2]["next_comm"]) for e in sw]),
        ("waking_timestamp", deltas(wk)),
        ("waking_pid", [e[2]["pid"] for e in wk]),
        ("waking_target_cpu", [e[2]["target_cpu"] for e in wk]),
        ("waking_prio", [e[2]["prio"] for e in wk]),
        ("waking_comm_index", [idx(e[2]["comm"]) for e in wk]),
        ("waking_common_flags", [e[2]["flags"] for e in wk]),
    ]
    body = " ".join('intern_table: "%s"' % n for n in names)
    for name, vals in cols:
        if vals:
            body += "\n    %s: [%s]" % (name, ", ".join(str(v) for v in vals))
    return "compact_sched { %s }" % body


def main():
    form = sys.argv[1] if len(sys.argv) > 1 else "typed"
    rng = random.Random(27)
    per_cpu = [gen_cpu(rng, cpu) for cpu in range(CPUS)]
    print("# Made by tests/data/linux/gen_sched_trace.py %s (see there)." % form)
    # CPU 2's bundles come first, then the others round robin: every CPU's time range overlaps
    # the others', so the import must merge bundles out of order.
    order = [(2, 0)] + [(c, b) for b in range(BUNDLES) for c in range(CPUS) if (c, b) != (2, 0)]
    for cpu, b in order:
        lost, evs = per_cpu[cpu][b]
        if form == "compact":
            evs = [e for e in evs if e[1] != "rename"]
            inner = compact(evs)
        else:
            inner = "\n    ".join(typed_event(*e) for e in evs)
        print("packet { trusted_packet_sequence_id: 1 ftrace_events { cpu: %d%s\n    %s } }"
              % (cpu, " lost_events: true" if lost else "", inner))


if __name__ == "__main__":
    main()
