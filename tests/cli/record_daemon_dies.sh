#!/usr/bin/env bash
# A daemon killed in the middle of `trak record` (issue #15, case 10): record exits non-zero
# with a clear message, and still leaves a valid trace whose trace_stats packet says the final
# flush failed, so `trak check` fails on it instead of passing a 0-byte file as "0 events".
set -u
TRAK=$1
PRODUCER=$TRAK_BINARY_DIR/example_system_producer
. "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"
export TRAK_SOCKET=$WORK/trak.sock
"$TRAK" daemon 2>"$WORK/daemon.log" & daemon=$!
"$PRODUCER" one 20 >/dev/null 2>&1 & producer=$!
trap 'kill $daemon $producer 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do [ -S "$TRAK_SOCKET" ] && break; sleep 0.1; done
sleep 0.3
timeout 30 "$TRAK" record -o "$WORK/cut.pb" --time 20s 2>"$WORK/record.err" & rec=$!
sleep 1
kill -9 $daemon
wait $rec
rc=$?
[ $rc != 0 ] || { echo "FAIL: record exits 0 although the daemon died"; fail=1; }
expect_lines "$WORK/record.err" 'trak record: lost the connection to the daemon'
"$TRAK" check "$WORK/cut.pb" >"$WORK/check.out" 2>&1
rc=$?
[ $rc = 1 ] || { echo "FAIL: check of the cut trace exits $rc, not 1"; cat "$WORK/check.out"; fail=1; }
expect_lines "$WORK/check.out" '[traced_final_flush_failed]'
grep -q 'trace_corrupt\|trace_truncated\|packet_malformed' "$WORK/check.out" &&
  { echo "FAIL: the cut trace is not a valid trace:"; cat "$WORK/check.out"; fail=1; }

# A trace with no packets at all is an error for check.
: >"$WORK/empty.pb"
"$TRAK" check "$WORK/empty.pb" >"$WORK/empty.out" 2>&1
rc=$?
[ $rc = 1 ] || { echo "FAIL: check of an empty trace exits $rc, not 1"; fail=1; }
expect_lines "$WORK/empty.out" 'the trace holds no packets (0 bytes)' '[trace_empty]'
[ $fail = 0 ] && echo "record survives its daemon's death"
exit $fail
