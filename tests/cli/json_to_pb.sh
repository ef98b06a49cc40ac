#!/usr/bin/env bash
# `trak convert trace.json out.pb` (docs/formats.md): a JSON trace converted to protobuf (and to
# protobuf text) and imported again gives the same slices (ts, dur, name, category, depth,
# thread and process), args (keys after their first segment), counter values and flows as the
# JSON trace imported directly. Run over the golden JSON traces and over every seed and golden
# protobuf trace first converted to JSON. Slices that overlap without nesting (counted in
# slice_non_nesting) have no protobuf form, nor two threads sharing a tid (protobuf tids are
# system-wide); those traces are checked for everything else.
set -euo pipefail
shopt -s globstar # golden/**: goldens sit in subfolders by area
TRAK=$1
DATA=$TRAK_SOURCE_DIR/tests/data
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# A malformed trace exits 1 after printing its results: the results are compared, not the code.
q() { "$TRAK" query "$1" "$2" 2>/dev/null || :; }

SLICES="select s.ts, s.dur, coalesce(s.name, '[No name]'), s.category, s.depth, th.tid, th.name,
        p.pid, p.name from slice s left join thread_track tt on s.track_id = tt.id
        left join thread th using (utid) left join process p on p.upid = th.upid
        order by 1, 2, 3, 4, 5, 6"
# Arg keys past their first segment: the exporter writes nested keys as flat annotation names,
# whose '.', '[' and ']' a reader turns into '_' (as Perfetto does), so they compare that way.
ARGS="select s.ts, s.name, replace(replace(replace(substr(a.key, instr(a.key, '.') + 1), '.', '_'),
      '[', '_'), ']', '_'), a.display_value
      from slice s join args a using (arg_set_id) order by 1, 2, 3, 4"
COUNTERS="select ts, value from counter order by 1, 2"
FLOWS="select so.ts, so.name, si.ts, si.name from flow f join slice so on so.id = f.slice_out
       join slice si on si.id = f.slice_in order by 1, 2, 3, 4"
SLICES_ONLY="select ts, dur, coalesce(name, '[No name]'), category, depth from slice
             order by 1, 2, 3, 4, 5"
NON_NESTING="select count(*) from stats where name in ('slice_non_nesting',
             'slice_spill_overlapping_complete_event', 'misplaced_end_event') and value > 0"
SHARED_TIDS="select count(*) from (select tid from thread group by tid having count(*) > 1)"
ZERO=$(printf '"count(*)"\n0')

n=0
inputs=("$DATA"/golden/**/json_*.json)
for trace in "$DATA"/seed/*.pbtxt "$DATA"/golden/**/*.pbtxt; do
  out=$TMP/$(basename "$trace" .pbtxt).json
  "$TRAK" convert "$trace" "$out" 2>/dev/null || fail "$trace: convert to JSON failed"
  inputs+=("$out")
done
for json in "${inputs[@]}"; do
  name=$(basename "$json")
  # Malformed input still converts what it holds, and exits 1 (docs/limits.md).
  want=0
  grep -qx "${name%.json}" "$DATA/golden/malformed.list" && want=1
  for rt in "$TMP/rt.pb" "$TMP/rt.pbtxt"; do
    rc=0
    "$TRAK" convert "$json" "$rt" 2>/dev/null || rc=$?
    [ $rc = $want ] || fail "$name: convert to $rt exits $rc, not $want"
  done
  # One trak run per trace and format: the queries this trace compares, run together (each
  # run starts SQLite and its schema, most of a small trace's cost); a difference is then
  # named by running the queries one by one.
  checks=()
  flags=$(q "$json" "$NON_NESTING; $SHARED_TIDS")
  if [ "$flags" = "$ZERO"$'\n\n'"$ZERO" ]; then
    checks+=(SLICES_ONLY SLICES)
  elif [ "${flags%%$'\n\n'*}" = "$ZERO" ]; then
    checks+=(SLICES_ONLY)
  fi
  checks+=(ARGS COUNTERS FLOWS)
  all=""
  for c in "${checks[@]}"; do all+="${!c};"$'\n'; done
  want_rows=$(q "$json" "$all")
  for rt in "$TMP/rt.pb" "$TMP/rt.pbtxt"; do
    [ "$want_rows" = "$(q "$rt" "$all")" ] && continue
    for c in "${checks[@]}"; do
      [ "$(q "$json" "${!c}")" = "$(q "$rt" "${!c}")" ] || fail "$name: $c differ ($rt)"
    done
    fail "$name: results differ ($rt)"
  done
  n=$((n + 1))
done
[ $n -gt 30 ] || fail "only $n traces round-tripped"

# The non-nesting trace: every slice that nests keeps its ts, dur and depth.
"$TRAK" convert "$DATA/golden/json/json_thread_slices.json" "$TMP/ts.pb"
NESTED="select ts, dur, name, depth from slice where name not in ('x1', 'overlap', 'b_around_x',
        'x_past_e') order by 1, 2, 3"
[ "$(q "$DATA/golden/json/json_thread_slices.json" "$NESTED")" = "$(q "$TMP/ts.pb" "$NESTED")" ] ||
  fail "json_thread_slices: nesting slices differ"
COUNT="select count(*) from slice"
[ "$(q "$TMP/ts.pb" "$COUNT")" = "$(q "$DATA/golden/json/json_thread_slices.json" "$COUNT")" ] ||
  fail "json_thread_slices: slices lost"
echo "ok: $n JSON traces converted to protobuf and back"
