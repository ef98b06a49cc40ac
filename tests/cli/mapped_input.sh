#!/bin/bash
# A trace file is read through a read-only mapping (processor/read/file_map.c), framed in place
# on the decoding thread: the tables are those of the same bytes through a pipe (stdin), a FIFO
# and fread (TRAK_IMPORT_MMAP=0), with one import thread and two, for a binary trace (also cut
# inside a packet) and a JSON one past the first 1 MiB read; files that can't be read are one
# error line, an empty one a warning.
set -u
TRAK=$1
source "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"

for i in $(seq 40); do cat "$TRAK_SOURCE_DIR/tests/data/chrome/startup_excerpt.pb"; done >"$WORK/big.pb"
head -c 2500001 "$WORK/big.pb" >"$WORK/cut.pb"
awk 'BEGIN { printf "{\"traceEvents\": [\n";
  for (i = 0; i < 40000; i++)
    printf "{\"ph\": \"X\", \"name\": \"event %d\", \"pid\": %d, \"tid\": %d, \"ts\": %d, \"dur\": %d, \"args\": {\"n\": %d}},\n", i % 97, i % 3, i % 7, i * 10, i % 9, i;
  printf "{\"ph\": \"i\", \"name\": \"last\", \"pid\": 1, \"tid\": 1, \"ts\": 1}]}\n" }' >"$WORK/big.json"
[ "$(stat -c %s "$WORK/big.pb")" -gt 2000000 ] || { echo "FAIL: big.pb is small"; fail=1; }
[ "$(stat -c %s "$WORK/big.json")" -gt 2000000 ] || { echo "FAIL: big.json is small"; fail=1; }

Q="select count(*), sum(ts), sum(dur), sum(depth), sum(length(name)) from slice;
select count(*), sum(arg_set_id), sum(length(key)) from args;
select name, idx, severity, source, value from stats where value > 0 order by name, idx"

# same FILE: the answers and warnings of the mapped file, read four other ways, are the same.
same() {
  local f=$1 want="$WORK/want"
  TRAK_IMPORT_MMAP=0 TRAK_IMPORT_THREADS=1 "$TRAK" query "$f" "$Q" >"$want" 2>"$want.err"
  [ -s "$want" ] || { echo "FAIL: $f: no answer"; fail=1; }
  local way
  for way in mapped1 mapped2 fread2 stdin fifo; do
    case $way in
    mapped1) TRAK_IMPORT_THREADS=1 "$TRAK" query "$f" "$Q" ;;
    mapped2) TRAK_IMPORT_THREADS=2 "$TRAK" query "$f" "$Q" ;;
    fread2) TRAK_IMPORT_MMAP=0 TRAK_IMPORT_THREADS=2 "$TRAK" query "$f" "$Q" ;;
    stdin) cat "$f" | TRAK_IMPORT_THREADS=2 "$TRAK" query - "$Q" ;;
    fifo)
      rm -f "$WORK/fifo" && mkfifo "$WORK/fifo"
      cat "$f" >"$WORK/fifo" &
      TRAK_IMPORT_THREADS=2 "$TRAK" query "$WORK/fifo" "$Q"
      wait
      ;;
    esac >"$WORK/got" 2>"$WORK/got.err"
    cmp -s "$want" "$WORK/got" || { echo "FAIL: $f read by $way answers otherwise:"; diff "$want" "$WORK/got" | head; fail=1; }
    # warnings name the input: the same apart from the name
    sed "s|$f|INPUT|g; s|$WORK/fifo|INPUT|g; s|: -: |: INPUT: |" "$want.err" >"$WORK/a.err"
    sed "s|$f|INPUT|g; s|$WORK/fifo|INPUT|g; s|: -: |: INPUT: |" "$WORK/got.err" >"$WORK/b.err"
    cmp -s "$WORK/a.err" "$WORK/b.err" || { echo "FAIL: $f read by $way warns otherwise:"; diff "$WORK/a.err" "$WORK/b.err" | head; fail=1; }
  done
}
same "$WORK/big.pb"
same "$WORK/cut.pb"
grep -qF "trace ends inside a packet" "$WORK/want.err" || grep -q "truncated" "$WORK/want" ||
  { echo "FAIL: cut.pb: no truncation told"; cat "$WORK/want.err"; fail=1; }
same "$WORK/big.json"

# one_error FILE WHAT: trak query fails with 1 and one error line naming FILE and WHAT.
one_error() {
  "$TRAK" query "$1" 'select 1' >"$WORK/out" 2>"$WORK/err"
  local rc=$?
  [ $rc = 1 ] || { echo "FAIL: query $1 exits $rc, not 1"; fail=1; }
  [ "$(wc -l <"$WORK/err")" = 1 ] || { echo "FAIL: query $1: not one error line:"; cat "$WORK/err"; fail=1; }
  grep -qF "$1: $2" "$WORK/err" || { echo "FAIL: query $1: error lacks '$1: $2':"; cat "$WORK/err"; fail=1; }
}
one_error "$WORK/missing.pb" "No such file or directory"
mkdir "$WORK/dir.pb"
one_error "$WORK/dir.pb" "is a directory"
if [ "$(id -u)" != 0 ]; then # root reads any file
  cp "$WORK/big.pb" "$WORK/locked.pb" && chmod 000 "$WORK/locked.pb"
  one_error "$WORK/locked.pb" "Permission denied"
fi
: >"$WORK/empty.pb"
"$TRAK" query "$WORK/empty.pb" 'select 1' >"$WORK/out" 2>"$WORK/err" || { echo "FAIL: an empty file fails"; fail=1; }
grep -qF "empty trace" "$WORK/err" || { echo "FAIL: an empty file: no warning"; cat "$WORK/err"; fail=1; }
exit $fail
