#!/usr/bin/env bash
# JSON trace-event traces end to end: every trace trak reads (the seeds, the golden traces)
# converts to JSON and re-imports with the same slices, counters and flows; a syntax error
# is reported with its line and column; JSON traces and JSON Lines event files are told apart
# by content; stdin and gzip input work.
set -euo pipefail
shopt -s globstar # golden/**: goldens sit in subfolders by area
TRAK=$1
DATA=$TRAK_SOURCE_DIR/tests/data
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { "$TRAK" query "$1" "$2" 2>/dev/null; }

SLICES="select ts, dur, coalesce(name, '[No name]'), depth from slice order by 1, 2, 3, 4"
SLICES_NO_DEPTH="select ts, dur, coalesce(name, '[No name]') from slice order by 1, 2, 3"
OVERLAPS="select count(*) from stats where value > 0 and name in
          ('slice_spill_overlapping_complete_event', 'misplaced_end_event')"
ZERO=$(printf '"count(*)"\n0')
COUNTERS="select ts, value from counter order by 1, 2"
FLOWS="select so.ts, so.name, si.ts, si.name from flow f join slice so on so.id = f.slice_out
       join slice si on si.id = f.slice_in order by 1, 2, 3, 4"
TEXT_LOSSY="ftrace_syscalls.pbtxt ftrace_thread_slices.pbtxt ftrace_event_kinds.pbtxt"
TEXT_LOSSY="$TEXT_LOSSY drm_events.pbtxt v4l2_virtio_video.pbtxt"
n=0
for trace in "$DATA"/seed/*.pbtxt "$DATA"/golden/**/*.pbtxt "$DATA"/golden/**/json_*.json; do
  out=$TMP/rt.json
  name=$(basename "$trace")
  rc=0
  "$TRAK" convert "$trace" "$out" 2>"$TMP/err" || rc=$?
  # Malformed input still converts what it holds, and exits 1 (docs/limits.md).
  want=0
  grep -qx "${name%.json}" "$DATA/golden/malformed.list" && want=1
  [ $rc = $want ] || fail "$trace: convert exits $rc, not $want: $(cat "$TMP/err")"
  # A B slice that a complete slice partly overlaps becomes an X in JSON, and then the other
  # spills (as in Perfetto): such traces keep their slices but not every depth.
  slices=$SLICES
  [ "$(q "$trace" "$OVERLAPS")" = "$ZERO" ] || slices=$SLICES_NO_DEPTH
  # Slices made of kernel events that systrace text does not model (syscalls and signals,
  # as in Perfetto; workqueue_* not yet: docs/processor.md; mark_victim's mem.oom_kill on a
  # thread track whose atrace slices the text makes again; DRM, V4L2 and virtio-video events,
  # which Perfetto reads from protobuf only) stay ftrace_event rows only, and so do the flows
  # between such slices.
  flows=$FLOWS
  case " $TEXT_LOSSY " in *" $name "*) slices="$slices limit 0" flows="$FLOWS limit 0" ;; esac
  # Counters of tracks the systrace text makes (ScreenState, battery_stats.*) come back from it
  # when an ftrace event made them; their values from packets (InitialDisplayState,
  # android_system_property) are JSON counters.
  counters=$COUNTERS
  [ "$(q "$trace" "$slices")" = "$(q "$out" "$slices")" ] || fail "$name: slices differ"
  [ "$(q "$trace" "$counters")" = "$(q "$out" "$counters")" ] || fail "$name: counters differ"
  # A slice with two outgoing flows on an async track is beyond JSON: convert says so.
  if ! grep -q 'flow(s)' "$TMP/err"; then
    [ "$(q "$trace" "$flows")" = "$(q "$out" "$flows")" ] || fail "$name: flows differ"
  fi
  n=$((n + 1))
done
[ $n -gt 20 ] || fail "only $n traces round-tripped"

# Sort indexes (process and thread args) survive JSON -> JSON; process_labels are not read,
# as Perfetto does not read them.
META="select 'p', p.pid, a.key, a.display_value from process p join args a using (arg_set_id)
      union all select 't', t.tid, a.key, a.display_value from thread t join args a using (arg_set_id)
      order by 1, 2, 3"
"$TRAK" convert "$DATA/golden/json/json_metadata.json" "$TMP/meta.json"
[ "$(q "$TMP/meta.json" "$META")" = "$(q "$DATA/golden/json/json_metadata.json" "$META")" ] ||
  fail "sort indexes lost in JSON -> JSON"
[ "$(q "$TMP/meta.json" "$META" | wc -l)" = 3 ] || fail "json_metadata.json: expected 2 args"

# A syntax error: one warning naming line and column; the events before it are kept.
# The exit status is 1: the input is malformed (docs/limits.md).
"$TRAK" query "$DATA/golden/json/json_malformed.json" 'select count(*) from slice' \
  >"$TMP/out" 2>"$TMP/err" && fail "a JSON syntax error exits 0"
grep -q 'line 3, column 26' "$TMP/err" || fail "no line:column in: $(cat "$TMP/err")"
grep -qx '1' "$TMP/out" || fail "events before the error not kept"

# stdin and gzip.
[ "$(q - "$SLICES" <"$DATA/golden/json/json_thread_slices.json")" = \
  "$(q "$DATA/golden/json/json_thread_slices.json" "$SLICES")" ] || fail "stdin import differs"
gzip -c "$DATA/golden/json/json_async.json" >"$TMP/a.gz"
[ "$(q "$TMP/a.gz" "$SLICES")" = "$(q "$DATA/golden/json/json_async.json" "$SLICES")" ] ||
  fail "gzip import differs"

# JSON Lines events still convert as events, even to JSON; a one-line JSON trace whose args
# name a "track" is still a trace.
"$TRAK" convert "$DATA/writer/events.jsonl" "$TMP/events.pb"
"$TRAK" convert "$DATA/writer/events.jsonl" "$TMP/events.json"
[ "$(q "$TMP/events.pb" "$SLICES")" = "$(q "$TMP/events.json" "$SLICES")" ] ||
  fail "JSON Lines events convert differently to JSON"
echo '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1,"args":{"track":"x"}}]}' \
  >"$TMP/one_line.log"
"$TRAK" convert "$TMP/one_line.log" "$TMP/one_line.json"
[ "$(q "$TMP/one_line.json" 'select name from slice')" = "$(printf '"name"\n"a"')" ] ||
  fail "one-line JSON trace taken for JSON Lines"
echo "json traces ok ($n round trips)"
