#!/usr/bin/env bash
# `trak convert` and `trak dump` end to end, with protoc as an independent implementation:
# for every seed example, protoc's decoding of trak's binary must equal protoc's decoding of
# protoc's own encoding of the same text.
set -euo pipefail
TRAK=$1
SRC=${TRAK_SOURCE_DIR:?}
PROTOC=${PROTOC:-protoc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
decode() { "$PROTOC" -I "$SRC/protos" --decode=perfetto.protos.Trace trace.proto; }

n=0
for text in "$SRC"/tests/data/seed/*.pbtxt; do
  name=$(basename "$text" .pbtxt)
  "$TRAK" convert "$text" "$work/$name.pb"
  decode < "$work/$name.pb" > "$work/$name.ours.txt"
  "$PROTOC" -I "$SRC/protos" --encode=perfetto.protos.Trace trace.proto < "$text" | decode \
    > "$work/$name.protoc.txt"
  cmp -s "$work/$name.ours.txt" "$work/$name.protoc.txt" || fail "$name differs from protoc"
  # text -> binary -> text -> binary is byte-identical
  "$TRAK" convert "$work/$name.pb" "$work/$name.again.pbtxt"
  "$TRAK" convert --to pb "$work/$name.again.pbtxt" "$work/$name.again.bin"
  cmp -s "$work/$name.pb" "$work/$name.again.bin" || fail "$name round trip"
  # dump prints the same text as convert to .pbtxt, from binary or text input
  "$TRAK" dump "$work/$name.pb" | cmp -s - "$work/$name.again.pbtxt" || fail "$name dump"
  "$TRAK" dump "$text" | cmp -s - "$work/$name.again.pbtxt" || fail "$name dump of text"
  n=$((n + 1))
done
[ "$n" -eq 9 ] || fail "expected 9 seed examples, found $n"

# gzip input, detected by magic bytes whatever the name; formats detected by content
seed="$SRC/tests/data/seed/07_flows.pbtxt"
gzip -c "$seed" > "$work/flows.data"
"$TRAK" convert "$work/flows.data" "$work/flows.pb"
cmp -s "$work/flows.pb" "$work/07_flows.pb" || fail "gzip text input"
gzip -c "$work/07_flows.pb" > "$work/flows.pbtxt"   # binary, misleadingly named
"$TRAK" convert --to pb "$work/flows.pbtxt" - > "$work/flows2.pb"
cmp -s "$work/flows2.pb" "$work/07_flows.pb" || fail "gzip binary input / stdout output"
"$TRAK" convert - "$work/stdin.pb" < "$seed"
cmp -s "$work/stdin.pb" "$work/07_flows.pb" || fail "stdin input"

# help and version
"$TRAK" --version | grep -q '^trak [0-9]' || fail "--version"
"$TRAK" --help | grep -q convert || fail "--help"
for cmd in convert dump; do
  "$TRAK" "$cmd" --help | grep -q "usage: trak $cmd" || fail "$cmd --help"
done

# errors: one line, naming the problem, non-zero exit
expect_error() {
  local want=$1; shift
  if "$@" > "$work/out" 2> "$work/err"; then fail "expected failure: $*"; fi
  [ "$(wc -l < "$work/err")" -eq 1 ] || fail "expected one error line for: $*"
  grep -q -- "$want" "$work/err" || fail "error for '$*' lacks '$want': $(cat "$work/err")"
}
expect_error "no/such/file: No such file" "$TRAK" convert no/such/file "$work/x.pb"
printf 'packet {\n  timestamp: 1\n  "bogus": 2\n}\n' > "$work/bad.pbtxt"
expect_error "text format error at line 3, column 3" "$TRAK" convert "$work/bad.pbtxt" "$work/x.pb"
printf '\x0a\x05\x08\x01' > "$work/trunc.pb"
expect_error "trace ends inside a packet that starts at byte 0" "$TRAK" dump "$work/trunc.pb"
expect_error "cannot tell the output format" "$TRAK" convert "$seed" "$work/out.xyz"
expect_error "--to takes pb or pbtxt" "$TRAK" convert --to yaml "$seed" "$work/out.pb"
expect_error "unknown option" "$TRAK" dump --frobnicate "$seed"
printf '\x1f\x8b\x08\x00garbage' > "$work/badgz.pb"
expect_error "compressed" "$TRAK" dump "$work/badgz.pb"
expect_error "unknown command" "$TRAK" frobnicate
echo "convert_dump: all checks passed ($n seed examples)"
