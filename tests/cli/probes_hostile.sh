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
# (The first runs long enough for the second to start on a loaded machine.)
"$TRAK" record --sched --time 5s -o "$TMP/first.pb" 2> /dev/null & first=$!
wait_recording || fail "two sessions: the first did not start"
"$TRAK" record --sched --time 1s -o "$TMP/second.pb" 2> "$TMP/record.log" ||
  fail "second record: $(cat "$TMP/record.log")"
wait $first
check_restored "two sessions"
"$TRAK" dump "$TMP/second.pb" | grep -q 'exclusive_feature_error: "linux.ftrace is already recording' ||
  fail "second session: no refusal in its trace"
"$TRAK" dump "$TMP/first.pb" > "$TMP/first.txt"
grep -Eq 'sched_switch|switch_next_pid' "$TMP/first.txt" || fail "first session recorded nothing: $(grep -A3 ftrace_stats "$TMP/first.txt" | head; cat "$TMP/probes.log")"

kill "$PROBES"; wait "$PROBES" || true
check_restored "after probes"
echo "probes_hostile ok"
