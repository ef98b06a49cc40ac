"""Reads the kernel events of a trace printed by `trak dump` (protobuf text format) for the
probes tests: every FtraceEvent, and every CompactSched entry expanded to the same form, as
dicts {cpu, ts, name, pid, fields}; plus the other packets (process trees, ftrace stats)."""
import re

_TOKEN = re.compile(r'\s*(?:(\w+)\s*\{|(\w+):\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\]|\S+)|(\}))')


def parse_text(text):
    """The text format into nested dicts of lists: {field: [value or dict, ...]}."""
    root = {}
    stack = [root]
    pos = 0
    while True:
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            # Anything left unread is a dump this reader does not follow: say where, rather
            # than drop the packets after it.
            rest = text[pos:].strip()
            assert not rest, 'unparsed dump text at offset %d: %r' % (pos, rest[:80])
            break
        pos = m.end()
        if m.group(1):
            child = {}
            stack[-1].setdefault(m.group(1), []).append(child)
            stack.append(child)
        elif m.group(4):
            stack.pop()
        else:
            v = m.group(3)
            if v.startswith('['):  # a packed field: [1, 2, 3]
                stack[-1].setdefault(m.group(2), []).extend(
                    int(x) for x in v[1:-1].split(',') if x.strip())
                continue
            if v.startswith('"'):
                v = bytes(v[1:-1], 'utf-8').decode('unicode_escape')
            else:
                try:
                    v = int(v)
                except ValueError:
                    pass
            stack[-1].setdefault(m.group(2), []).append(v)
    return root


def one(d, key, default=None):
    v = d.get(key)
    return v[0] if v else default


def packets(path):
    # A process's command line may hold bytes that are not UTF-8; keep them readable.
    with open(path, encoding='utf-8', errors='backslashreplace') as f:
        return parse_text(f.read()).get('packet', [])


def events(pkts):
    """Every ftrace event of the trace, CompactSched entries included (flag 'compact')."""
    out = []
    for p in pkts:
        for b in p.get('ftrace_events', []):
            cpu = one(b, 'cpu', 0)
            for e in b.get('event', []):
                name = next(k for k in e if k not in ('timestamp', 'pid', 'common_flags'))
                body = e[name][0]
                if name == 'generic':
                    name = one(body, 'event_name')
                    fields = {}
                    for f in body.get('field', []):
                        val = [f[k][0] for k in ('str_value', 'int_value', 'uint_value') if k in f]
                        fields[one(f, 'name')] = val[0] if val else None
                else:
                    fields = {k: v[0] for k, v in body.items()}
                out.append(dict(cpu=cpu, ts=one(e, 'timestamp'), name=name,
                                pid=one(e, 'pid'), fields=fields))
            for c in b.get('compact_sched', []):
                table = c.get('intern_table', [])
                ts = 0
                for i, d in enumerate(c.get('switch_timestamp', [])):
                    ts += d
                    out.append(dict(cpu=cpu, ts=ts, name='sched_switch', pid=None, compact=True,
                                    fields=dict(prev_state=c['switch_prev_state'][i],
                                                next_pid=c['switch_next_pid'][i],
                                                next_prio=c['switch_next_prio'][i],
                                                next_comm=table[c['switch_next_comm_index'][i]])))
                ts = 0
                for i, d in enumerate(c.get('waking_timestamp', [])):
                    ts += d
                    out.append(dict(cpu=cpu, ts=ts, name='sched_waking', pid=None, compact=True,
                                    fields=dict(pid=c['waking_pid'][i],
                                                target_cpu=c['waking_target_cpu'][i],
                                                prio=c['waking_prio'][i],
                                                comm=table[c['waking_comm_index'][i]])))
    out.sort(key=lambda e: (e['ts'], e['cpu']))
    return out


def stats_by_phase(pkts, key):
    """{phase: {cpu: value}} of one FtraceCpuStats field, the last stats of each phase."""
    phases = {}
    for p in pkts:
        for s in p.get('ftrace_stats', []):
            phases[one(s, 'phase')] = {one(c, 'cpu', 0): one(c, key, 0)
                                       for c in s.get('cpu_stats', [])}
    return phases


def kernel_losses(pkts):
    """What the kernel lost during the recording, for a failure's message: per CPU the overrun
    and dropped events between the START_OF_TRACE and END_OF_TRACE stats, and the number of
    bundles flagged lost_events."""
    out = {}
    for key in ('overrun', 'dropped_events'):
        ph = stats_by_phase(pkts, key)
        start, end = ph.get('START_OF_TRACE', {}), ph.get('END_OF_TRACE', {})
        out[key] = {c: n - start.get(c, 0) for c, n in end.items()}
    out['lost_bundles'] = sum(1 for p in pkts for b in p.get('ftrace_events', [])
                              if one(b, 'lost_events') in (1, 'true'))
    return out


def read_by_cpu(pkts, evs):
    """Per CPU: the events of the trace, and the events the kernel counted as read by the time
    of the last END_OF_TRACE FtraceStats (minus those at START_OF_TRACE). Every event the
    kernel handed out before the end stats must be in the trace: fewer means packets lost
    between the reader and the trace."""
    got = {}
    for e in evs:
        got[e['cpu']] = got.get(e['cpu'], 0) + 1
    phases = stats_by_phase(pkts, 'read_events')
    assert 'END_OF_TRACE' in phases, 'no END_OF_TRACE ftrace_stats'
    start = phases.get('START_OF_TRACE', {})
    read = {c: n - start.get(c, 0) for c, n in phases['END_OF_TRACE'].items()}
    return got, read
