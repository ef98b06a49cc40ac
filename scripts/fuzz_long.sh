#!/usr/bin/env bash
# `make fuzz-long FUZZ_SECONDS=N`: runs every libFuzzer target of build-fuzz/ for N seconds on a
# scratch copy of its seed corpus, with its -max_len from tests/fuzz/max_len.txt, and prints one
# line per target: executions, exec/s, coverage (edges) and features at the end. Exits 1 if any
# target found a crash, a leak or a timeout (its artifact is left in build-fuzz/fuzz-long/).
set -u
SECONDS_EACH=${1:?usage: fuzz_long.sh SECONDS [BUILD_DIR]}
BUILD=$(cd "${2:-build-fuzz}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=$BUILD/fuzz-long
mkdir -p "$OUT"
status=0
printf '%-20s %10s %8s %8s %8s %s\n' target execs exec/s cov ft result
for bin in "$BUILD"/fuzz_*; do
  [ -f "$bin" ] && [ -x "$bin" ] || continue
  name=$(basename "$bin")
  max_len=$(awk -v n="$name" '$1 == n { print $2 }' "$SRC/tests/fuzz/max_len.txt")
  work=$OUT/$name
  rm -rf "$work" && mkdir -p "$work/corpus"
  cp "$SRC/tests/fuzz/corpus/$name"/* "$work/corpus/" 2>/dev/null
  (cd "$work" && "$bin" -max_total_time="$SECONDS_EACH" -max_len="${max_len:-65536}" \
    -rss_limit_mb=2048 -print_final_stats=1 corpus >log.txt 2>&1)
  rc=$?
  last=$(grep -E '^#[0-9]+' "$work/log.txt" | tail -1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log.txt")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log.txt")
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  result=clean
  [ $rc = 0 ] || { result="FAILED (rc $rc, see $work/log.txt)"; status=1; }
  printf '%-20s %10s %8s %8s %8s %s\n' "$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$result"
done
exit $status
