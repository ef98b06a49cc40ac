#!/usr/bin/env bash
# `trak convert` on tabular events: CSV and JSON Lines convert into traces protoc can decode,
# a bad row fails with its line number, --keep-going converts the rest, and content detection
# works without a telling extension.
set -euo pipefail
TRAK=$1
DATA=$TRAK_SOURCE_DIR/tests/data/writer
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
decode() { "$PROTOC" --decode=perfetto.protos.Trace -I "$TRAK_SOURCE_DIR/protos" \
             "$TRAK_SOURCE_DIR/protos/trace.proto" < "$1"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

for input in events.csv events.jsonl; do
  "$TRAK" convert --seed 7 "$DATA/$input" "$TMP/$input.pb"
  decode "$TMP/$input.pb" > "$TMP/$input.txt"
  grep -q 'process_name: "app"' "$TMP/$input.txt" || fail "$input: no process descriptor"
  grep -q 'thread_name: "main"' "$TMP/$input.txt" || fail "$input: no thread descriptor"
  grep -q 'name: "quoted, with comma"' "$TMP/$input.txt" && fail "$input: arg value taken as a name"
  grep -q 'string_value: "quoted, with comma"' "$TMP/$input.txt" || fail "$input: no string arg"
  grep -q 'sequence_flags: 3' "$TMP/$input.txt" || fail "$input: no incremental state reset"
done
cmp -s "$TMP/events.csv.pb" "$TMP/events.jsonl.pb" || fail "CSV and JSONL traces differ"

# Content detection: the same CSV under a name that says nothing.
cp "$DATA/events.csv" "$TMP/events.log"
"$TRAK" convert --seed 7 "$TMP/events.log" "$TMP/detected.pb"
cmp -s "$TMP/events.csv.pb" "$TMP/detected.pb" || fail "detected CSV converts differently"

# Compressed input: events.csv.gz is recognised through its .gz suffix.
gzip -c "$DATA/events.csv" > "$TMP/events.csv.gz"
"$TRAK" convert --seed 7 "$TMP/events.csv.gz" "$TMP/gz.pb"
cmp -s "$TMP/events.csv.pb" "$TMP/gz.pb" || fail "gzip'ed CSV converts differently"

# A bad row stops the conversion, names the file and the line, and writes nothing.
if "$TRAK" convert "$DATA/events_bad.csv" "$TMP/bad.pb" 2> "$TMP/err"; then fail "bad CSV accepted"; fi
grep -q "events_bad.csv: line 3: column 'ts': 'abc' is not a non-negative time" "$TMP/err" ||
  fail "unexpected error: $(cat "$TMP/err")"
[ ! -e "$TMP/bad.pb" ] || fail "output written despite the error"

# --keep-going reports every bad row and converts the rest.
"$TRAK" convert --keep-going "$DATA/events_bad.csv" "$TMP/kept.pb" 2> "$TMP/err"
[ "$(grep -c 'events_bad.csv: line ' "$TMP/err")" = 7 ] || fail "expected 7 bad rows: $(cat "$TMP/err")"
grep -q 'skipped 7 bad row(s) of 10' "$TMP/err" || fail "no summary"
decode "$TMP/kept.pb" | grep -q 'name: "last"' || fail "rows after bad ones missing"
# The examples of docs/writer.md convert.
for lang in csv jsonl; do
  awk -v lang="$lang" '$0 == "```" lang {c=1; next} c && /^```$/ {exit} c' \
    "$TRAK_SOURCE_DIR/docs/writer.md" > "$TMP/doc.$lang"
  [ -s "$TMP/doc.$lang" ] || fail "no $lang example in docs/writer.md"
  "$TRAK" convert "$TMP/doc.$lang" "$TMP/doc_$lang.pb"
  decode "$TMP/doc_$lang.pb" | grep -q 'name: "load"' || fail "docs $lang example lost its slices"
done
echo ok
