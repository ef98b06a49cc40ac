#!/bin/bash
# The rules every command follows for its input and options: input that is not a trace (an
# executable, a text file, broken JSON) is an error with exit status 1 naming the file and what
# was expected, for every command that reads a trace; an empty trace is a warning (none with
# --allow-empty) and exit 0; an unknown option is named, exit 2; `text` and `table` are one
# format everywhere.
set -u
TRAK=$1
source "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"
SEED=$TRAK_SOURCE_DIR/tests/data/seed/01_thread_slices.pbtxt

printf 'hello world\n' >"$WORK/notes.txt"
printf '{"traceEvents": [{"ph": "X", oops}]' >"$WORK/cut.json"
: >"$WORK/empty.pb"
printf '[]' >"$WORK/empty.json"
head -c 3000 /bin/sh >"$WORK/program"

# not_trace CMD ARGS...: the command, given a non-trace as its first file, fails with 1.
not_trace() {
  local file=$1
  shift
  "$TRAK" "$@" >"$WORK/out" 2>"$WORK/err"
  local rc=$?
  [ $rc = 1 ] || { echo "FAIL: trak $* exits $rc, not 1"; fail=1; }
  [ "$(wc -l <"$WORK/err")" = 1 ] || { echo "FAIL: trak $*: not one error line:"; cat "$WORK/err"; fail=1; }
  grep -qF "$file: not a trace" "$WORK/err" ||
    grep -qF "$file: malformed" "$WORK/err" ||
    grep -qF "$file: line 1, column 1" "$WORK/err" ||
    { echo "FAIL: trak $*: error does not name $file:"; cat "$WORK/err"; fail=1; }
}
for f in "$WORK/notes.txt" "$WORK/cut.json" "$WORK/program"; do
  not_trace "$f" query "$f" 'select 1'
  grep -qF "expected a Perfetto trace" "$WORK/err" || { echo "FAIL: query $f: no 'expected'"; fail=1; }
  not_trace "$f" export "$f" "$WORK/x.db"
  not_trace "$f" metrics "$f" --run slice_stats
  not_trace "$f" alerts "$f" --run long_slices
  not_trace "$f" html "$f" -o "$WORK/x.html"
  echo 'select 1;' | not_trace "$f" shell "$f"
done
"$TRAK" check "$WORK/program" >"$WORK/out" 2>"$WORK/err" && { echo "FAIL: check of a program passes"; fail=1; }
expect_lines "$WORK/err" "program: not a trace"
not_trace "$WORK/program" dump "$WORK/program"
not_trace "$WORK/notes.txt" convert "$WORK/notes.txt" "$WORK/x.pb"

# An empty trace: a warning and exit 0; --allow-empty (anywhere) silences it.
for f in "$WORK/empty.pb" "$WORK/empty.json"; do
  "$TRAK" query "$f" 'select count(*) from slice' >"$WORK/out" 2>"$WORK/err" ||
    { echo "FAIL: empty $f fails"; fail=1; }
  expect_lines "$WORK/err" "warning: $f: empty trace"
  "$TRAK" query --allow-empty "$f" 'select 1' >"$WORK/out" 2>"$WORK/err" ||
    { echo "FAIL: --allow-empty $f fails"; fail=1; }
  [ -s "$WORK/err" ] && { echo "FAIL: --allow-empty still warns:"; cat "$WORK/err"; fail=1; }
done
"$TRAK" check "$WORK/empty.pb" --allow-empty >"$WORK/out" 2>"$WORK/err" || { echo "FAIL: check empty"; fail=1; }
[ -s "$WORK/err" ] && { echo "FAIL: check --allow-empty warns"; fail=1; }
# A trace of perf samples only (no counts, so no counters) is not empty.
cat >"$WORK/perf_only.pbtxt" <<'EOF2'
packet {
  trusted_packet_sequence_id: 1
  timestamp: 6
  perf_sample { cpu: 0 pid: 123 tid: 123 }
}
EOF2
"$TRAK" query "$WORK/perf_only.pbtxt" 'select count(*) from perf_sample' >"$WORK/out" 2>"$WORK/err"
[ -s "$WORK/err" ] && { echo "FAIL: a perf-only trace warns:"; cat "$WORK/err"; fail=1; }

# Unknown options are named, exit 2.
for cmd in "query $SEED" "shell $SEED" "export $SEED" "check" "metrics $SEED" "alerts $SEED" \
  "annotate $SEED" "dump" "convert" "status" "record" "daemon" "ui $SEED" "html $SEED"; do
  # shellcheck disable=SC2086
  "$TRAK" $cmd --frobnicate >"$WORK/out" 2>"$WORK/err" </dev/null
  rc=$?
  [ $rc = 2 ] || { echo "FAIL: trak $cmd --frobnicate exits $rc"; fail=1; }
  expect_lines "$WORK/err" "unknown option '--frobnicate'"
done

# One word per output mode: text and table are the same in query and metrics.
a=$("$TRAK" query "$SEED" --format text 'select name from slice order by id')
b=$("$TRAK" query "$SEED" --format table 'select name from slice order by id')
[ "$a" = "$b" ] && [ -n "$a" ] || { echo "FAIL: query --format text differs from table"; fail=1; }
a=$("$TRAK" metrics "$SEED" --run slice_stats --format text)
b=$("$TRAK" metrics "$SEED" --run slice_stats --format table)
[ "$a" = "$b" ] && [ -n "$a" ] || { echo "FAIL: metrics --format text differs from table"; fail=1; }
"$TRAK" metrics "$SEED" --run slice_stats --format tp >/dev/null || { echo "FAIL: metrics --format tp"; fail=1; }
"$TRAK" query "$SEED" --format yaml 'select 1' 2>"$WORK/err" && { echo "FAIL: bad format accepted"; fail=1; }
expect_lines "$WORK/err" "unknown format 'yaml' (table, csv, json or tp)"

[ $fail = 0 ] && echo "input and option rule tests pass"
exit $fail
