#!/usr/bin/env bash
# Text-format traces are imported as a stream: a large text trace (every seed's packets
# repeated), plain, gzip-compressed or on stdin, gives the tables of its binary encoding; a
# field trak lacks is skipped with a warning naming its line and column; a
# syntax error deep in it is reported by `trak query` with the whole file's line and column,
# and the packets before it are kept.
set -euo pipefail
TRAK=$1
DATA=$TRAK_SOURCE_DIR/tests/data
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { "$TRAK" query "$1" "$2" 2>/dev/null; }

ALL="select count(*), sum(dur), count(distinct name) from slice"
# 200 copies of a seed, about 300 KB of text, cut across many reads and pieces.
for i in $(seq 200); do cat "$DATA/seed/02_process_slices.pbtxt"; done >"$TMP/big.pbtxt"
"$TRAK" convert "$TMP/big.pbtxt" "$TMP/big.pb"
want=$(q "$TMP/big.pb" "$ALL")
[ "$(q "$TMP/big.pbtxt" "$ALL")" = "$want" ] || fail "text import differs from binary"
gzip -c "$TMP/big.pbtxt" >"$TMP/big.pbtxt.gz"
[ "$(q "$TMP/big.pbtxt.gz" "$ALL")" = "$want" ] || fail "gzip text import differs"
[ "$(q - "$ALL" <"$TMP/big.pbtxt")" = "$want" ] || fail "stdin text import differs"

# A gzip stream cut in half: one truncation warning, the packets before it kept.
head -c $(($(stat -c %s "$TMP/big.pbtxt.gz") / 2)) "$TMP/big.pbtxt.gz" >"$TMP/cut.gz"
# Data lost: exit 1 (docs/limits.md), after the rows.
"$TRAK" query "$TMP/cut.gz" "select count(*) from slice" >"$TMP/out" 2>"$TMP/err" &&
  fail "a truncated trace exits 0"
grep -q "gzip stream ends early" "$TMP/err" || fail "no truncation warning: $(cat "$TMP/err")"
grep -q "text_parse_error\|text format error" "$TMP/err" && fail "a truncation is not a syntax error"
total=$(q "$TMP/big.pb" "select count(*) from slice" | tail -1)
kept=$(tail -1 "$TMP/out")
[ "$kept" -gt 0 ] && [ "$kept" -lt "$total" ] || fail "kept $kept of $total slices"

# An unknown field name in the middle: a warning naming line and column of the whole file, and
# every packet imported (the seed's slices, 200 times).
lines=$(wc -l <"$DATA/seed/02_process_slices.pbtxt")
{
  for i in $(seq 100); do cat "$DATA/seed/02_process_slices.pbtxt"; done
  printf 'packet {\n  timestamp: 1\n     track_evnt { name: "x" }\n}\n'
  for i in $(seq 100); do cat "$DATA/seed/02_process_slices.pbtxt"; done
} >"$TMP/newer.pbtxt"
"$TRAK" query "$TMP/newer.pbtxt" "select count(*) from slice" >"$TMP/out" 2>"$TMP/err" ||
  fail "a trace with an unknown field exits $?"
where="warning: $TMP/newer.pbtxt: line $((lines * 100 + 3)), column 6: TracePacket has no field 'track_evnt'"
grep -qF "$where" "$TMP/err" || fail "no '$where' in: $(cat "$TMP/err")"
all=$(for i in $(seq 200); do cat "$DATA/seed/02_process_slices.pbtxt"; done |
  "$TRAK" query - "select count(*) from slice" 2>/dev/null | tail -1)
[ "$(tail -1 "$TMP/out")" = "$all" ] || fail "packets around the unknown field: $(cat "$TMP/out"), want $all"
"$TRAK" check "$TMP/newer.pbtxt" >"$TMP/check" 2>&1 || true
grep -q "text_unknown_field (1): Fields of a text trace" "$TMP/check" ||
  fail "trak check does not explain text_unknown_field: $(cat "$TMP/check")"

# A syntax error in the middle: line and column of the whole file on stderr, the packets before
# it imported (the seed's slices, 100 times).
sed "s/track_evnt/'track_evnt'/" "$TMP/newer.pbtxt" >"$TMP/bad.pbtxt"
"$TRAK" query "$TMP/bad.pbtxt" "select count(*) from slice" >"$TMP/out" 2>"$TMP/err" &&
  fail "a trace with a syntax error exits 0"
where="line $((lines * 100 + 3)), column 6"
grep -q "$where" "$TMP/err" || fail "no '$where' in: $(cat "$TMP/err")"
half=$(for i in $(seq 100); do cat "$DATA/seed/02_process_slices.pbtxt"; done |
  "$TRAK" query - "select count(*) from slice" 2>/dev/null | tail -1)
[ "$(tail -1 "$TMP/out")" = "$half" ] || fail "packets before the error: $(cat "$TMP/out"), want $half"
[ "$half" -gt 0 ] || fail "the seed has no slices"
"$TRAK" check "$TMP/bad.pbtxt" >"$TMP/check" 2>&1 && fail "trak check passes a trace with a syntax error"
grep -q "text_parse_error" "$TMP/check" || fail "trak check does not name text_parse_error"
echo "ok"
