#!/usr/bin/env bash
# `trak probes` when things go wrong (root and tracefs; skipped otherwise): killed mid-session
# (tracefs stays changed until `--restore` or the next start puts it back), a buffer too small
# for the load (the kernel's overrun in the trace's FtraceStats, the loss flagged in bundles),
# unknown event names in a Perfetto config (listed in FtraceStats and on stderr), and a second
# session wanting ftrace at once (refused with a reason in its trace).
set -euo pipefail
. "$(dirname "$0")/probes_common.bash"
start_daemon
start_probes

# Killed mid-session: the state file and the changed tracefs stay; --restore puts it back.
"$TRAK" record --sched --time 2s -o "$TMP/killed.pb" 2> "$TMP/record.log" & rec=$!
wait_recording || fail "tracing is not on while recording"
[ -e "$TRAK_PROBES_STATE" ] || fail "no state file while recording"
kill -9 "$PROBES"; wait "$PROBES" 2>/dev/null || true
wait $rec || fail "record after probes died: $(cat "$TMP/record.log")"
"$TRAK" dump "$TMP/killed.pb" > /dev/null || fail "the trace of a killed probes does not read"
[ "$(cat $TRACEFS/tracing_on)" = 1 ] || fail "tracefs changed by nobody?"
"$TRAK" probes --restore 2> "$TMP/restore.log" || fail "restore: $(cat "$TMP/restore.log")"
grep -q 'tracefs restored' "$TMP/restore.log" || fail "restore said: $(cat "$TMP/restore.log")"
check_restored "--restore"

# Killed again: this time the next start restores.
start_probes
"$TRAK" record --sched --time 2s -o "$TMP/killed2.pb" 2> "$TMP/record.log" & rec=$!
wait_recording || true
kill -9 "$PROBES"; wait "$PROBES" 2>/dev/null || true
wait $rec || true
start_probes
grep -q 'restored tracefs after an earlier recording' "$TMP/probes.log" ||
  fail "the next start did not restore: $(cat "$TMP/probes.log")"
check_restored "next start"

# A Perfetto config: an 8 KB buffer drained every 2 s under a scheduling load overruns; two
# names do not exist.
cat > "$TMP/small.pbtxt" <<'CFG'
buffers { size_kb: 8192 fill_policy: DISCARD }
duration_ms: 2500
data_sources {
  config {
    name: "linux.ftrace"
    ftrace_config {
      ftrace_events: "sched/sched_switch"
      ftrace_events: "sched/sched_waking"
      ftrace_events: "sched/no_such_event"
      ftrace_events: "bogus_group/bogus"
      buffer_size_kb: 8
      drain_period_ms: 2000
    }
  }
}
CFG
"$TRAK" record -c "$TMP/small.pbtxt" -o "$TMP/small.pb" 2> "$TMP/record.log" & rec=$!
sleep 0.3
loads=()
for _ in 1 2 3; do "$SCHED_WORKLOAD" > /dev/null & loads+=($!); done
wait $rec || fail "record -c: $(cat "$TMP/record.log")"
wait "${loads[@]}"
check_restored "small buffer"
"$TRAK" dump "$TMP/small.pb" > "$TMP/small.txt"
python3 - "$TMP/small.txt" <<'PY' || fail "small buffer"
import sys
from ftrace_trace import packets, one
pk = packets(sys.argv[1])
stats = [s for p in pk for s in p.get('ftrace_stats', [])]
end = [s for s in stats if one(s, 'phase') == 'END_OF_TRACE']
assert end, 'no END_OF_TRACE stats'
overrun = sum(one(c, 'overrun', 0) for c in end[-1].get('cpu_stats', []))
assert overrun > 0, 'no overrun reported'
lost = [b for p in pk for b in p.get('ftrace_events', []) if one(b, 'lost_events') in (1, 'true')]
assert lost, 'no bundle flagged lost_events'
unknown = set(u for s in stats for u in s.get('unknown_ftrace_events', []))
assert unknown == {'sched/no_such_event', 'bogus_group/bogus'}, unknown
print('overrun', overrun, 'lost bundles', len(lost), 'unknown', sorted(unknown))
PY
grep -q "unknown event 'sched/no_such_event'" "$TMP/probes.log" || fail "unknown event not on stderr"

# Two sessions at once: the second gets no ftrace, and its trace says why.
# (The first records until the second is done: Ctrl-C, which `trak record` takes as its stop.)
"$TRAK" record --sched --time 60s -o "$TMP/first.pb" 2> /dev/null & first=$!
wait_recording || fail "two sessions: the first did not start"
"$TRAK" record --sched --time 1s -o "$TMP/second.pb" 2> "$TMP/record.log" ||
  fail "second record: $(cat "$TMP/record.log")"
kill -INT $first
wait $first || fail "first record, stopped by SIGINT, failed"
check_restored "two sessions"
"$TRAK" dump "$TMP/second.pb" > "$TMP/second.txt"
grep -q 'exclusive_feature_error: "linux.ftrace is already recording' "$TMP/second.txt" ||
  fail "second session: no refusal in its trace: $(grep -E 'error|ftrace_stats' "$TMP/second.txt" | head -5)"
"$TRAK" dump "$TMP/first.pb" > "$TMP/first.txt"
grep -Eq 'sched_switch|switch_next_pid' "$TMP/first.txt" || fail "first session recorded nothing: $(grep -A3 ftrace_stats "$TMP/first.txt" | head; cat "$TMP/probes.log")"

# Another trak probes (its own daemon and state file) while this one records: tracefs is
# locked, so it refuses with a reason in its trace rather than read half the events.
"$TRAK" record --sched --time 6s -o "$TMP/first.pb" 2> /dev/null & first=$!
wait_recording || fail "another trak probes: the first recording did not start"
(
  export TRAK_SOCKET=$TMP/other.sock TRAK_PROBES_STATE=$TMP/other.state
  "$TRAK" daemon 2> /dev/null & d=$!
  for _ in $(seq 50); do [ -S "$TRAK_SOCKET" ] && break; sleep 0.1; done
  "$TRAK" probes 2> "$TMP/other_probes.log" & p=$!
  for _ in $(seq 50); do "$TRAK" status 2> /dev/null | grep -q linux.ftrace && break; sleep 0.1; done
  "$TRAK" record --sched --time 1s -o "$TMP/other.pb" 2> /dev/null
  kill $p $d; wait $p $d || true
)
wait $first
check_restored "another trak probes"
# (Into a file first: `dump | grep -q` under pipefail fails when grep's early exit stops a dump
# longer than a pipe buffer, as a busy machine's process tree makes it.)
"$TRAK" dump "$TMP/other.pb" > "$TMP/other.txt"
grep -q 'exclusive_feature_error: "ftrace is in use by another trak probes' "$TMP/other.txt" ||
  fail "another trak probes: no refusal: $(cat "$TMP/other_probes.log"; grep -A3 ftrace_stats "$TMP/other.txt" | head)"

# A shared buffer far smaller than what the first drains read (64 KB per producer, a switch
# storm filling the kernel's buffers): the reader leaves pages in the kernel until the daemon
# has taken chunks, and the process tree waits for room, so no packet is lost, the tree still
# names trak's own threads, and every event the kernel says was read is in the trace.
kill "$PROBES" "$DAEMON"; wait "$PROBES" "$DAEMON" || true
start_daemon --producer-buffer 64
start_probes
"$SCHED_WORKLOAD" burst 3000 & load=$!
sleep 0.5
"$TRAK" record --full-sched --time 2s -o "$TMP/tight.pb" 2> "$TMP/record.log" ||
  fail "record with a small producer buffer: $(cat "$TMP/record.log")"
wait $load
check_restored "small producer buffer"
grep -q ', 0 packets lost' "$TMP/record.log" || fail "small producer buffer: $(cat "$TMP/record.log")"
"$TRAK" dump "$TMP/tight.pb" > "$TMP/tight.txt"
python3 - "$TMP/tight.txt" <<'PY' || fail "small producer buffer"
import sys
from ftrace_trace import packets, events, read_by_cpu, one
pk = packets(sys.argv[1])
names = {one(t, 'name') for p in pk for tr in p.get('process_tree', []) for t in tr.get('threads', [])}
assert 'trak' in names, 'no trak thread in the process tree (%d names)' % len(names)
got, read = read_by_cpu(pk, events(pk))
assert sum(read.values()) > 10000, 'too few events for the test to mean anything: %r' % read
assert all(got.get(c, 0) >= n for c, n in read.items()), 'read by the kernel %r, in the trace %r' % (read, got)
print('small producer buffer ok: events per cpu', sorted(got.items()))
PY

kill "$PROBES"; wait "$PROBES" || true
check_restored "after probes"
echo "probes_hostile ok"
