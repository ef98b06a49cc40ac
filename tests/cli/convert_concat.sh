#!/usr/bin/env bash
# `trak convert` of tabular events: two CSV files converted separately and concatenated with
# cat import as one trace with both sets of tracks and slices apart; --seed reproduces bytes;
# streamed input and output (stdin, stdout, gzip, text format) give the same trace; a failed
# conversion leaves neither an output file nor a temporary one, and keeps an older output.
set -euo pipefail
TRAK=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { "$TRAK" query "$1" "$2" --format csv | tail -n +2 | tr -d '"'; }

# Two sources with the same track paths and names: only their identities keep them apart.
for n in 1 2; do
  {
    echo 'ts,dur,ph,track,name'
    echo "$((n * 10)),,B,Root/GPU,outer$n"
    echo "$((n * 10 + 1)),3,X,Root/GPU,inner$n"
    echo "$((n * 10 + 50)),,E,Root/GPU,"
    echo "$((n * 10 + 2)),5,X,process 7 \"app\"/thread 8 \"main\",work$n"
  } > "$TMP/part$n.csv"
  "$TRAK" convert "$TMP/part$n.csv" "$TMP/part$n.pb"
done
cat "$TMP/part1.pb" "$TMP/part2.pb" > "$TMP/both.pb"
[ "$(q "$TMP/both.pb" "select count(*) from track where name = 'GPU'")" = 2 ] ||
  fail "the two GPU tracks merged"
[ "$(q "$TMP/both.pb" "select count(*) from track where name = 'Root'")" = 2 ] ||
  fail "the two Root tracks merged"
got=$(q "$TMP/both.pb" "select group_concat(x, ' ') from (select s.name || '@' || s.depth || '<' ||
  coalesce(p.name, '-') as x from slice s left join slice p on s.parent_id = p.id order by s.name)")
[ "$got" = "inner1@1<outer1 inner2@1<outer2 outer1@0<- outer2@0<- work1@0<- work2@0<-" ] ||
  fail "slices of the concatenation: $got"
# Each GPU track holds its own writer's slices only.
got=$(q "$TMP/both.pb" "select group_concat(n, ' ') from (select group_concat(s.name, '+') as n
  from slice s join track t on s.track_id = t.id where t.name = 'GPU' group by t.id order by n)")
[ "$got" = "outer1+inner1 outer2+inner2" ] || fail "GPU tracks hold $got"

# Unseeded conversions differ (random identities); seeded ones are byte for byte the same.
"$TRAK" convert "$TMP/part1.csv" "$TMP/again.pb"
cmp -s "$TMP/part1.pb" "$TMP/again.pb" && fail "two unseeded conversions are identical"
"$TRAK" convert --seed 5 "$TMP/part1.csv" "$TMP/s1.pb"
"$TRAK" convert --seed 5 "$TMP/part1.csv" "$TMP/s2.pb"
cmp -s "$TMP/s1.pb" "$TMP/s2.pb" || fail "--seed 5 twice gives different bytes"
if "$TRAK" convert --seed x "$TMP/part1.csv" "$TMP/bad.pb" 2> "$TMP/err"; then fail "--seed x accepted"; fi
grep -q "seed takes an unsigned number" "$TMP/err" || fail "--seed x: $(cat "$TMP/err")"

# Streams: gzip input, stdin with --from, stdout, text output.
gzip -c "$TMP/part1.csv" > "$TMP/part1.csv.gz"
"$TRAK" convert --seed 5 --to pb "$TMP/part1.csv.gz" - > "$TMP/stdout.pb"
cmp -s "$TMP/s1.pb" "$TMP/stdout.pb" || fail "gzip input to stdout differs"
"$TRAK" convert --seed 5 --from csv - "$TMP/stdin.pb" < "$TMP/part1.csv"
cmp -s "$TMP/s1.pb" "$TMP/stdin.pb" || fail "CSV from stdin differs"
gzip -c "$TMP/part1.csv" | "$TRAK" convert --seed 5 --from=csv - "$TMP/stdin_gz.pb"
cmp -s "$TMP/s1.pb" "$TMP/stdin_gz.pb" || fail "gzip'ed CSV from stdin differs"
if "$TRAK" convert --from tsv - "$TMP/x.pb" < /dev/null 2> "$TMP/err"; then fail "--from tsv accepted"; fi
grep -q "from takes csv or jsonl" "$TMP/err" || fail "--from tsv: $(cat "$TMP/err")"
"$TRAK" convert --seed 5 "$TMP/part1.csv" "$TMP/s1.pbtxt"
"$TRAK" convert "$TMP/s1.pb" "$TMP/s1_from_pb.pbtxt"
cmp -s "$TMP/s1.pbtxt" "$TMP/s1_from_pb.pbtxt" || fail "streamed text output differs"

# Output of many pieces (the writer hands over 256 KiB at a time): text printed piece by piece
# is the text of the whole; a FIFO (like a device) is written in place, never replaced by a
# renamed temporary file.
awk 'BEGIN { print "ts,dur,track,name,n"; for (i = 0; i < 30000; i++)
  printf "%d,5,process 1 \"p\"/thread %d \"t\",op%d,%d\n", i * 10, 2 + i % 4, i % 9, i }' \
  > "$TMP/many.csv"
"$TRAK" convert --seed 2 "$TMP/many.csv" "$TMP/many.pb"
[ "$(stat -c %s "$TMP/many.pb")" -gt $((3 * 256 * 1024)) ] || fail "many.pb is too small to test"
"$TRAK" convert --seed 2 "$TMP/many.csv" "$TMP/many.pbtxt"
"$TRAK" convert "$TMP/many.pb" "$TMP/many_from_pb.pbtxt"
cmp -s "$TMP/many.pbtxt" "$TMP/many_from_pb.pbtxt" || fail "text output in pieces differs"
mkfifo "$TMP/fifo"
timeout 60 cat "$TMP/fifo" > "$TMP/from_fifo.pb" &
reader=$!
"$TRAK" convert --seed 2 --to pb "$TMP/many.csv" "$TMP/fifo" || { kill $reader; fail "FIFO output"; }
wait $reader || fail "nothing was written into the FIFO"
[ -p "$TMP/fifo" ] || fail "the FIFO was replaced"
cmp -s "$TMP/many.pb" "$TMP/from_fifo.pb" || fail "the FIFO received another trace"

# A failure writes nothing: no output, no temporary file, an older output kept.
printf 'ts,track\n1,T\nnope,T\n' > "$TMP/bad.csv"
echo old > "$TMP/kept.pb"
if "$TRAK" convert "$TMP/bad.csv" "$TMP/kept.pb" 2> "$TMP/err"; then fail "bad.csv accepted"; fi
grep -q "bad.csv: line 3: column 'ts': 'nope' is not a non-negative time" "$TMP/err" ||
  fail "unexpected error: $(cat "$TMP/err")"
[ "$(cat "$TMP/kept.pb")" = old ] || fail "the older output was replaced"
if ls "$TMP" | grep -q 'tmp-'; then fail "a temporary file was left: $(ls "$TMP")"; fi
echo ok
