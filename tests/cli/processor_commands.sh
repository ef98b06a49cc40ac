#!/bin/bash
# Tests of the processor commands: query formats and statements, check's problem list and exit
# status (the seed's track-sorting example ends a slice on a track it never began on), export
# to a SQLite file, the shell's dot commands, and the warning for a truncated trace.
set -u
TRAK=$1
DATA=$TRAK_SOURCE_DIR/tests/data
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail=0
expect() { # expect DESCRIPTION: fails the test when the previous check did not hold
  echo "FAIL: $1"; fail=1
}
encode() { "$PROTOC" --encode=perfetto.protos.Trace -I "$TRAK_SOURCE_DIR/protos" trace.proto <"$1" >"$2"; }

encode "$DATA/seed/05_order_chronological.pbtxt" "$WORK/05.pb"
encode "$DATA/seed/01_thread_slices.pbtxt" "$WORK/01.pb"

# check: lists the unmatched end with its packet index; exits 1 (the undescribed track is an error).
"$TRAK" check "$WORK/05.pb" >"$WORK/check.txt"; rc=$?
[ $rc = 1 ] || expect "check exits 1 on errors (got $rc)"
grep -q '^packet 3: warning: slice end on track uuid 60000 matches no open slice' "$WORK/check.txt" ||
  expect "check names the end on a track with no open slice"
grep -q '^packet 3: error: events use track uuid 60000, which no track_descriptor describes' \
  "$WORK/check.txt" || expect "check names the undescribed track"
grep -q '^packet 2: warning: slice "A1"' "$WORK/check.txt" || expect "check warns of the unterminated slice"
"$TRAK" check "$WORK/01.pb" >"$WORK/check1.txt" || expect "check exits 0 on a clean trace"
grep -q '0 errors, 0 warnings' "$WORK/check1.txt" || expect "check summary of a clean trace"

# query: several statements, blank line between results; -q FILE; formats.
printf '"a"\n1\n\n"b"\n"x"\n' >"$WORK/want.txt"
"$TRAK" query "$WORK/01.pb" "select 1 as a; create table t(x); select 'x' as b;" >"$WORK/got.txt"
cmp -s "$WORK/want.txt" "$WORK/got.txt" || expect "query prints each result block"
echo "select count(*) as n from slice" >"$WORK/q.sql"
[ "$("$TRAK" query "$WORK/01.pb" -q "$WORK/q.sql")" = "$(printf '"n"\n3')" ] || expect "query -q FILE"
[ "$("$TRAK" query "$WORK/01.pb" --format json 'select 1 as n, null as z')" = \
  "$(printf '[\n  {"n": 1, "z": null}\n]')" ] || expect "json format"
"$TRAK" query "$WORK/01.pb" --format table 'select name, depth from slice order by id' >"$WORK/t.txt"
grep -q '^My special child  1' "$WORK/t.txt" || expect "table format aligns columns"
"$TRAK" query "$WORK/01.pb" 'select nonsense from nowhere' 2>"$WORK/e.txt" && expect "bad SQL fails"
grep -q 'trak query: no such table: nowhere' "$WORK/e.txt" || expect "bad SQL error message"

# export: any SQLite tool reads the file.
"$TRAK" export "$WORK/01.pb" "$WORK/out.db" || expect "export succeeds"
# (the sqlite3 command comes from scripts/deps.sh, so this check always runs)
[ "$(sqlite3 "$WORK/out.db" 'select count(*) from slice; select name from thread where tid = 5678;')" = \
  "$(printf '3\nMy thread name')" ] || expect "exported database holds the tables"

# shell without a terminal: statements and dot commands from stdin.
printf '.mode csv\nselect count(*) as n\n  from slice;\n.tables\n.quit\n' |
  "$TRAK" shell "$WORK/01.pb" >"$WORK/sh.txt"
grep -q '^3$' "$WORK/sh.txt" || expect "shell runs a statement spanning lines"
grep -q '^thread_track$' "$WORK/sh.txt" || expect "shell .tables"

# a gzip-compressed text trace, read from stdin: the format comes from the content.
gzip -c "$DATA/seed/01_thread_slices.pbtxt" |
  "$TRAK" query - 'select count(*) as n from slice' >"$WORK/gz.txt" || expect "gzip text from stdin"
[ "$(cat "$WORK/gz.txt")" = "$(printf '"n"\n3')" ] || expect "gzip text gives the slices"

# truncated trace: one error line with the byte offset; the valid packets are imported and
# queried, and the exit status is 1 (data lost, docs/limits.md).
size=$(stat -c %s "$WORK/01.pb")
head -c $((size - 4)) "$WORK/01.pb" >"$WORK/trunc.pb"
"$TRAK" query "$WORK/trunc.pb" 'select count(*) from slice' >"$WORK/tq.txt" 2>"$WORK/tw.txt"
[ $? = 1 ] || expect "a truncated trace exits 1"
[ "$(tail -1 "$WORK/tq.txt")" -gt 0 ] 2>/dev/null || expect "truncated trace still queries"
[ "$(grep -c error "$WORK/tw.txt")" = 1 ] || expect "exactly one error line"
grep -q 'trace ends inside a packet that starts at byte' "$WORK/tw.txt" || expect "error names the byte"
# A trace recorded by trak's SDK (its incremental sequence clock, interning, counters shared by
# threads) checks clean and imports its slices.
if [ -x "$TRAK_BINARY_DIR/example_sdk_demo" ]; then
  "$TRAK_BINARY_DIR/example_sdk_demo" "$WORK/sdk.pftrace" >/dev/null 2>&1 || expect "sdk demo runs"
  "$TRAK" check "$WORK/sdk.pftrace" >"$WORK/sdk_check.txt" || expect "SDK trace checks clean"
  grep -q ' 0 errors, 0 warnings' "$WORK/sdk_check.txt" || expect "SDK trace has no problems"
  n=$("$TRAK" query "$WORK/sdk.pftrace" 'select count(*) from slice where dur > 0' | tail -1)
  [ "${n:-0}" -gt 0 ] || expect "SDK trace has slices"
fi
[ $fail = 0 ] && echo "processor command tests pass"
exit $fail
