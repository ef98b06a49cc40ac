#!/bin/bash
# Hostile traces (issue #15), generated at test time by hostile_gen: each must end with the
# documented exit code, a one-line message naming the limit, the stat that counts the cut, and
# — where the case is about memory — within 256 MB of address space (not under sanitizers,
# whose shadow memory needs far more).
set -u
TRAK=$1
GEN=${HOSTILE_GEN:?}
. "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"

limited=$([ "$("$GEN" sanitized)" = 0 ] && echo 1 || echo 0)
limit=unlimited
[ "$limited" = 1 ] && limit=262144

# run_case NAME RC MESSAGE STAT VALUE MEMORY_BOUND FILE: `trak check FILE` exits RC and prints
# MESSAGE; `stats` has STAT = VALUE (or at least 1 for VALUE +); with MEMORY_BOUND 1 both run
# with RLIMIT_AS at 256 MB.
run_case() {
  local name=$1 rc=$2 msg=$3 stat=$4 value=$5 bound=$6 file=$7
  local limit=unlimited
  [ "$bound" = 1 ] && [ "$limited" = 1 ] && limit=262144
  (ulimit -v $limit; exec "$TRAK" check "$file") >"$WORK/$name.out" 2>&1
  local got=$?
  [ $got = "$rc" ] || { echo "FAIL: $name: check exits $got, not $rc"; cat "$WORK/$name.out"; fail=1; }
  grep -qF -- "$msg" "$WORK/$name.out" || { echo "FAIL: $name: no '$msg' in:"; cat "$WORK/$name.out"; fail=1; }
  local v
  v=$( (ulimit -v $limit; exec "$TRAK" query "$file" "select value from stats where name = '$stat'") | tail -1)
  if [ "$value" = + ]; then
    [ "${v:-0}" -ge 1 ] 2>/dev/null || { echo "FAIL: $name: stat $stat = '$v', want >= 1"; fail=1; }
  else
    [ "$v" = "$value" ] || { echo "FAIL: $name: stat $stat = '$v', want $value"; fail=1; }
  fi
}

# 1. compressed_packets 10,000 deep: no stack overflow; the top packet and 4 inflated levels are imported, the rest skipped.
"$GEN" nested 10000 >"$WORK/nested.pb"
run_case nested 1 "compressed_packets nested deeper than 4 levels" compressed_packets_too_deep 1 1 \
  "$WORK/nested.pb"
tracks=$("$TRAK" query "$WORK/nested.pb" "select count(*) from track" | tail -1)
[ "$tracks" = 5 ] || { echo "FAIL: nested: $tracks tracks, want 5 (the top packet, 4 levels)"; fail=1; }

# 2. Decompression bombs: 1.4 MB inflating to 1 GB in 4 MiB pieces (the trace's ratio stops
# them) and in one piece (the per-packet cap stops it); the packets after them still count.
"$GEN" bomb 256 >"$WORK/bomb.pb"
run_case bomb 1 "inflate past 100 times its size" compressed_packets_inflate_limit + 1 \
  "$WORK/bomb.pb"
tracks=$("$TRAK" query "$WORK/bomb.pb" "select count(*) from track" | tail -1)
[ "$tracks" = 1 ] || { echo "FAIL: bomb: $tracks tracks, want 1 (the descriptors after it)"; fail=1; }
"$GEN" bomb1 200 >"$WORK/bomb1.pb"
run_case bomb1 1 "they inflate past 64 MiB" compressed_packets_inflate_limit 1 1 "$WORK/bomb1.pb"

# 8. A packet over the 256 MiB packet limit is skipped, the packets after it are kept (it used
# to stop the whole rest of the trace). Gzip keeps the 300 MB on disk at 1.4 MB.
"$GEN" bigpacket 300 | gzip -1 >"$WORK/big.pb.gz"
run_case bigpacket 1 "over the 256 MiB limit; skipped it" packet_too_large 1 1 "$WORK/big.pb.gz"
tracks=$("$TRAK" query "$WORK/big.pb.gz" "select count(*) from track" | tail -1)
[ "$tracks" = 2 ] || { echo "FAIL: bigpacket: $tracks tracks, want both descriptors"; fail=1; }
# convert and dump apply the same limit (they used to copy the packet): exit 1, the same
# message, the packets after it kept, within 256 MB.
big_msg="packet at byte 27 is 314572808 bytes, over the 256 MiB limit; skipped it (packet 2)"
(ulimit -v $limit; exec "$TRAK" convert "$WORK/big.pb.gz" "$WORK/big_out.pb") 2>"$WORK/big_convert.err"
rc=$?
[ $rc = 1 ] || { echo "FAIL: convert of the 300 MB packet exits $rc"; fail=1; }
expect_lines "$WORK/big_convert.err" "$big_msg"
tracks=$("$TRAK" query "$WORK/big_out.pb" "select count(*) from track" | tail -1)
[ "$tracks" = 2 ] || { echo "FAIL: convert kept $tracks of the 2 descriptors around the big packet"; fail=1; }
(ulimit -v $limit; exec "$TRAK" dump "$WORK/big.pb.gz") >"$WORK/big_dump.txt" 2>"$WORK/big_dump.err"
rc=$?
[ $rc = 1 ] || { echo "FAIL: dump of the 300 MB packet exits $rc"; fail=1; }
expect_lines "$WORK/big_dump.err" "$big_msg"
n=$(grep -c "track_descriptor {" "$WORK/big_dump.txt")
[ "$n" = 2 ] || { echo "FAIL: dump printed $n of the 2 descriptors around the big packet"; fail=1; }

# 7. Debug annotations nested past 32 levels and keys past 1024 bytes: dropped, but counted and
# reported (they used to vanish with `check` saying 0 errors).
"$GEN" deep_args 40 >"$WORK/deep.pb"
run_case deep_args 1 "nests deeper than 32 levels" debug_annotation_too_deep 1 0 "$WORK/deep.pb"
"$GEN" deep_args 31 >"$WORK/deep31.pb"
"$TRAK" check "$WORK/deep31.pb" >/dev/null || { echo "FAIL: 31 levels of annotations rejected"; fail=1; }
# 10,000 levels: check stops at 32; dump prints past 100 levels as bytes, with a small stack,
# and the text converts back to the same bytes.
"$GEN" deep_args 10000 >"$WORK/deep10k.pb"
run_case deep10k 1 "nests deeper than 32 levels" debug_annotation_too_deep 1 0 "$WORK/deep10k.pb"
(ulimit -s 1024; exec "$TRAK" dump "$WORK/deep10k.pb") >"$WORK/deep10k.txt" ||
  { echo "FAIL: dump of 10,000 nested annotations fails"; fail=1; }
"$TRAK" convert "$WORK/deep10k.txt" "$WORK/deep10k_back.pb" &&
  cmp -s "$WORK/deep10k.pb" "$WORK/deep10k_back.pb" ||
  { echo "FAIL: deep annotations do not round-trip through dump"; fail=1; }
"$GEN" long_key 2000 >"$WORK/key.pb"
run_case long_key 1 "is 2006 bytes, over the 1024-byte limit" arg_key_too_long 1 0 "$WORK/key.pb"

# 8. A text packet over the 64 MiB text packet limit is skipped without being held, the
# packets after it kept (a 500 MB one used to cost 1.5 GB).
"$GEN" text_long 100 | gzip -1 >"$WORK/long.pbtxt.gz"
run_case text_long 1 "over the 64 MiB text packet limit; skipped it" packet_too_large 1 1 \
  "$WORK/long.pbtxt.gz"
got=$("$TRAK" query "$WORK/long.pbtxt.gz" "select group_concat(name) from track" 2>/dev/null | tail -1)
[ "$got" = '"after"' ] || { echo "FAIL: the text packet after the long one: $got"; fail=1; }

# 6. One long JSON event cut by many reads is read once, not again from its start at every read
# (figures in docs/testing.md); an event over the 64 MiB event limit is skipped, and the events
# after it are kept.
"$GEN" json_long 60 | gzip -1 >"$WORK/long.json.gz"
got=$( (ulimit -v $limit; exec "$TRAK" query "$WORK/long.json.gz" \
  "select group_concat(name) from (select name from slice order by ts)") 2>"$WORK/long.err")
rc=$?
[ $rc = 0 ] && [ ! -s "$WORK/long.err" ] ||
  { echo "FAIL: the 60 MB JSON event: exit $rc, $(cat "$WORK/long.err")"; fail=1; }
[ "$(echo "$got" | tail -1)" = '"big,after"' ] || { echo "FAIL: long JSON event: slices $got"; fail=1; }
"$GEN" json_long 100 | gzip -1 >"$WORK/huge.json.gz"
run_case json_huge 1 "is over the 64 MiB event limit; skipped it" json_event_too_large 1 1 \
  "$WORK/huge.json.gz"
got=$("$TRAK" query "$WORK/huge.json.gz" "select group_concat(name) from slice" 2>/dev/null | tail -1)
[ "$got" = '"after"' ] || { echo "FAIL: the event after the huge one: $got"; fail=1; }

# JSON nested past the 64-level limit: that event alone is skipped, counted and reported with its
# byte offset; the events after it are kept (the rest of the trace used to be dropped).
"$GEN" json_deep 100000 >"$WORK/deep.json"
run_case json_deep 1 "the JSON event at byte 60 (line 2, column 1) nests deeper than 64 levels; skipped it" \
  json_nesting_too_deep 1 0 "$WORK/deep.json"
got=$("$TRAK" query "$WORK/deep.json" "select group_concat(name) from slice" 2>/dev/null | tail -1)
[ "$got" = '"before,after"' ] || { echo "FAIL: the events around the deep one: $got"; fail=1; }

# 9. Invalid UTF-8 in JSON strings is repaired to U+FFFD and counted; the protobuf that
# convert writes then decodes with protoc (it used to be rejected).
printf '[{"name":"a\xffb","ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"args":{"k":"v\xe2\x82"}}]' \
  >"$WORK/utf8.json"
run_case utf8 1 "invalid UTF-8 sequence(s)" json_invalid_utf8 2 0 "$WORK/utf8.json"
got=$("$TRAK" query "$WORK/utf8.json" "select hex(name) from slice" | tail -1)
[ "$got" = '"61EFBFBD62"' ] || { echo "FAIL: repaired name is $got"; fail=1; }
"$TRAK" convert "$WORK/utf8.json" "$WORK/utf8.pb" &&
  "$PROTOC" --decode=perfetto.protos.Trace -I "$TRAK_SOURCE_DIR/protos" trace.proto \
    <"$WORK/utf8.pb" >/dev/null || { echo "FAIL: converted invalid UTF-8 is not valid protobuf"; fail=1; }

# 3. dump and convert stream: 300 MB of packets (1.6 MB gzip) convert, and 64 MB dump to 256 MB
# of text, within 256 MB of address space (they used to hold the whole trace, and its text).
"$GEN" padding 300 | gzip -1 >"$WORK/pad300.gz"
"$GEN" padding 64 | gzip -1 >"$WORK/pad64.gz"
n=$( (ulimit -v $limit; "$TRAK" convert --to pb "$WORK/pad300.gz" - 2>"$WORK/pad300.err"
  echo $? >"$WORK/pad300.rc") | wc -c)
[ "$n" = $((300 * 1048576 / 4098 * 4098)) ] || { echo "FAIL: streaming convert wrote $n bytes"; fail=1; }
[ "$(cat "$WORK/pad300.rc")" = 0 ] && [ ! -s "$WORK/pad300.err" ] ||
  { echo "FAIL: streaming convert exits $(cat "$WORK/pad300.rc"): $(cat "$WORK/pad300.err")"; fail=1; }
n=$( (ulimit -v $limit; "$TRAK" dump "$WORK/pad64.gz" 2>"$WORK/pad64.err"
  echo $? >"$WORK/pad64.rc") | wc -c)
[ "$n" -gt $((200 << 20)) ] || { echo "FAIL: streaming dump wrote $n bytes"; fail=1; }
[ "$(cat "$WORK/pad64.rc")" = 0 ] && [ ! -s "$WORK/pad64.err" ] ||
  { echo "FAIL: streaming dump exits $(cat "$WORK/pad64.rc"): $(cat "$WORK/pad64.err")"; fail=1; }
# Streaming also keeps going past damage: the 300 MB trace cut in its middle converts up to
# the cut, exits 1 and says where.
head -c 800000 "$WORK/pad300.gz" >"$WORK/pad_cut.gz"
(ulimit -v $limit; exec "$TRAK" convert --to pb "$WORK/pad_cut.gz" "$WORK/pad_cut.pb") \
  2>"$WORK/pad_cut.err"
rc=$?
[ $rc = 1 ] || { echo "FAIL: convert of a cut gzip exits $rc"; fail=1; }
grep -q "pad_cut.gz: gzip stream ends early, inside the packet at byte" "$WORK/pad_cut.err" ||
  { echo "FAIL: no message for the cut gzip"; fail=1; }
[ "$(stat -c %s "$WORK/pad_cut.pb")" -gt $((100 << 20)) ] ||
  { echo "FAIL: convert of the cut trace kept $(stat -c %s "$WORK/pad_cut.pb") bytes"; fail=1; }

# 9. Exit codes: data lost or input malformed -> 1. convert validates what it copies: random
# bytes and zeros are not a trace; a JSON trace dumps as protobuf text.
head -c 100000 /dev/zero >"$WORK/zeros.pb"
"$TRAK" convert "$WORK/zeros.pb" "$WORK/zeros_out.pb" 2>"$WORK/zeros.err"
rc=$?
[ $rc = 1 ] || { echo "FAIL: convert of zeros exits $rc"; fail=1; }
expect_lines "$WORK/zeros.err" "malformed trace at byte 0 (field number 0)"
[ -s "$WORK/zeros_out.pb" ] && { echo "FAIL: convert copied zeros"; fail=1; }
printf '\x0a\x01\x08' >"$WORK/badpkt.pb" # a packet whose field is cut short
printf '\x0a\x02\x08\x01' >>"$WORK/badpkt.pb" # then a good one
"$TRAK" convert "$WORK/badpkt.pb" "$WORK/badpkt_out.pb" 2>"$WORK/badpkt.err"
rc=$?
[ $rc = 1 ] || { echo "FAIL: convert of a malformed packet exits $rc"; fail=1; }
expect_lines "$WORK/badpkt.err" "packet at byte 0 does not decode"
cmp -s "$WORK/badpkt_out.pb" <(printf '\x0a\x02\x08\x01') ||
  { echo "FAIL: convert did not keep just the good packet"; fail=1; }
# A JSON syntax error and broken text fail convert alike (JSON used to exit 0 with a warning).
"$TRAK" convert "$TRAK_SOURCE_DIR/tests/data/golden/json/json_malformed.json" "$WORK/malformed.pb" \
  2>"$WORK/malformed.err"
rc=$?
[ $rc = 1 ] || { echo "FAIL: convert of JSON with a syntax error exits $rc"; fail=1; }
expect_lines "$WORK/malformed.err" "JSON syntax error at line 3, column 26: expected ',' or '}'"
v=$("$TRAK" query "$TRAK_SOURCE_DIR/tests/data/golden/json/json_malformed.json" \
  "select value from stats where name = 'json_tokenizer_failure'" 2>/dev/null | tail -1)
[ "$v" = 1 ] || { echo "FAIL: json_tokenizer_failure = $v"; fail=1; }
printf 'packet { track_descriptor { uuid: 1 name: "x" } }\npacket { track_descriptor { uuid: ' \
  >"$WORK/broken.pbtxt"
"$TRAK" convert "$WORK/broken.pbtxt" "$WORK/broken.pb" 2>"$WORK/broken.err"
rc=$?
[ $rc = 1 ] || { echo "FAIL: convert of broken text exits $rc"; fail=1; }
expect_lines "$WORK/broken.err" "text format error at line 2, column 35: expected an integer"
"$TRAK" dump "$TRAK_SOURCE_DIR/tests/data/golden/json/json_thread_slices.json" >"$WORK/json.txt" ||
  { echo "FAIL: dump of a JSON trace fails"; fail=1; }
expect_lines "$WORK/json.txt" "track_event {"

[ $fail = 0 ] && echo "hostile trace checks pass"
exit $fail
