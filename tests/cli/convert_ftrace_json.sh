#!/usr/bin/env bash
# `trak convert TRACE out.json` keeps ftrace data as systrace text in "systemTraceEvents": a
# Linux trace converted to JSON and imported back has the same scheduling slices, thread states
# (those text carries), CPU counters and atrace slices and counters as the original, each once;
# the lines have the layout of Perfetto's to_ftrace and nanosecond timestamps.
set -euo pipefail
TRAK=$1
GOLDEN=$TRAK_SOURCE_DIR/tests/data/golden/linux
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

SCHED="select s.ts, s.dur, c.cpu, t.tid, s.end_state, s.priority
       from sched_slice s join thread t using (utid) join cpu c on c.id = s.ucpu order by 1, 3"
STATES="select s.ts, s.dur, t.tid, s.state, s.io_wait, s.ucpu, w.tid as waker
        from thread_state s join thread t using (utid) left join thread w on w.utid = s.waker_utid
        order by 1, 3"
COUNTERS="select t.type, t.name, c.ts, c.value from counter c join track t on t.id = c.track_id
          order by 1, 2, 3"
SLICES="select s.ts, s.dur, s.name, s.depth, t.type from slice s join track t on t.id = s.track_id
        order by 1, 3"

# same TRACE QUERY...: each query gives the same rows on the trace and on its JSON conversion.
same() {
  local trace=$1 name
  name=$(basename "$trace" .pbtxt)
  shift
  "$TRAK" convert "$trace" "$TMP/$name.json"
  for q in "$@"; do
    "$TRAK" query "$trace" "$q" > "$TMP/a.csv"
    "$TRAK" query "$TMP/$name.json" "$q" > "$TMP/b.csv"
    diff "$TMP/a.csv" "$TMP/b.csv" > "$TMP/diff" ||
      fail "$name: the JSON conversion differs for: $q"$'\n'"$(head -20 "$TMP/diff")"
  done
}

# Typed and compact sched_switch and sched_waking: slices, end states, priorities, thread
# states with their wakers.
same "$GOLDEN/sched_regression_typed.pbtxt" "$SCHED" "$STATES"
same "$GOLDEN/sched_regression_compact.pbtxt" "$SCHED" "$STATES"
same "$GOLDEN/sched_same_ts_order.pbtxt" "$SCHED" "$STATES"
# atrace markers (B/E, S/F, C, N, G/H) become the same slices and counters, and only once.
same "$GOLDEN/atrace_async_slices.pbtxt" "$SLICES" "$COUNTERS"
# CPU counters; a frequency limit the event leaves out is 0, as the protobuf parser reads it.
same "$GOLDEN/cpu_frequency_limits.pbtxt" "$COUNTERS"
same "$GOLDEN/cpu_rows_from_counters.pbtxt" "$COUNTERS"
# Events before the import's crop are not written: text cannot say "keep only the raw row".
same "$GOLDEN/ftrace_crop_atrace.pbtxt" "$SLICES"
same "$GOLDEN/ftrace_crop_start.pbtxt" "$SCHED" "$STATES" "$SLICES" "$COUNTERS"

# Thread states that no ftrace event makes (a generic kernel's task states, a JSON trace's T
# events) are written as T events: the same states, and sched rows for Running ones (T events
# carry no end state or priority, and Perfetto's JSON parser gives their states no CPU).
T_STATES="select s.ts, s.dur, t.tid, s.state, s.io_wait, s.blocked_function
          from thread_state s join thread t using (utid) order by 1, 3, 4"
T_SCHED="select s.ts, s.dur, c.cpu, t.tid from sched s join thread t using (utid)
         join cpu c on c.id = s.ucpu order by 1, 3"
same "$GOLDEN/generic_kernel_sched.pbtxt" "$T_STATES" "$T_SCHED"
same "$TRAK_SOURCE_DIR/tests/data/golden/json/json_thread_states.json" "$T_STATES" "$T_SCHED"
grep -q '"ph":"T","cat":"thread_state","name":"D"' "$TMP/json_thread_states.json.json" ||
  fail "no T event for the D state"
[ "$("$TRAK" query "$TMP/generic_kernel_sched.json" "select count(*) from thread_state")" = \
  "$(printf '"count(*)"\n11')" ] || fail "generic kernel states not all written"

# What text leaves out is counted on stderr.
"$TRAK" convert "$GOLDEN/ftrace_crop_atrace.pbtxt" "$TMP/crop.json" 2> "$TMP/err"
grep -q "1 ftrace event(s) before the import's crop" "$TMP/err" ||
  fail "no warning for the cropped event: $(cat "$TMP/err")"

# The lines: to_ftrace's layout, prev_state as letters, exact nanoseconds.
"$TRAK" query "$TMP/sched_regression_typed.json" "select count(*) from sched" > /dev/null
python3 - "$TMP/sched_regression_typed.json" <<'PY' || fail "unexpected systemTraceEvents text"
import json, re, sys
text = json.load(open(sys.argv[1]))["systemTraceEvents"]
lines = [l for l in text.splitlines() if l and not l.startswith("#")]
pat = re.compile(r"^ *\S.*-\d+ +\((-----| *\d+)\) \[\d{3}\] \.\.\.\. \d+\.\d{9,10}: \w+:")
bad = [l for l in lines if not pat.match(l)]
assert lines and not bad, bad[:3]
sw = [l for l in lines if " sched_switch: " in l]
assert sw and all(re.search(r" prev_state=[A-Za-z|+]+ ==> next_comm=", l) for l in sw), sw[:3]
PY
