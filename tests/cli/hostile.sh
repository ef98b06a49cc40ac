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

# 7. Debug annotations nested past 32 levels and keys past 1024 bytes: dropped, but counted and
# reported (they used to vanish with `check` saying 0 errors).
"$GEN" deep_args 40 >"$WORK/deep.pb"
run_case deep_args 1 "nests deeper than 32 levels" debug_annotation_too_deep 1 0 "$WORK/deep.pb"
"$GEN" deep_args 31 >"$WORK/deep31.pb"
"$TRAK" check "$WORK/deep31.pb" >/dev/null || { echo "FAIL: 31 levels of annotations rejected"; fail=1; }
"$GEN" long_key 2000 >"$WORK/key.pb"
run_case long_key 1 "is 2006 bytes, over the 1024-byte limit" arg_key_too_long 1 0 "$WORK/key.pb"

[ $fail = 0 ] && echo "hostile trace checks pass"
exit $fail
