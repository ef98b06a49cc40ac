#!/usr/bin/env bash
# A probes test killed before its cleanup (SIGKILL runs no EXIT trap) leaves tracefs as its
# recording set it; the next probes test must put tracefs back as the killed one found it, not
# take the changed state for the machine's (root and tracefs; skipped otherwise). Both tests are
# run here as children of this one, which holds the tests' tracefs lock for them.
set -euo pipefail
TRAK=$1
DIR=$(cd "$(dirname "$0")" && pwd)
TRACEFS=/sys/kernel/tracing
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (tracefs)"; exit 77; }
if [ ! -e $TRACEFS/tracing_on ]; then
  mount -t tracefs nodev $TRACEFS 2>/dev/null || { echo "SKIP: tracefs is not mounted and cannot be"; exit 77; }
fi
[ -w $TRACEFS/tracing_on ] || { echo "SKIP: tracefs is not writable"; exit 77; }
exec 9> /tmp/trak-tracefs-tests.lock
flock -w 900 9 || { echo "FAIL: tracefs stayed busy with another test run for 15 minutes"; exit 1; }
OUT=$(mktemp -d)
export TRAK_TRACEFS_LOCKED=1 TRAK_TRACEFS_FOUND=$OUT/found DIR
clock0=$(sed 's/.*\[\(.*\)\].*/\1/' $TRACEFS/trace_clock)
kb0=$(sed 's/ .*//' $TRACEFS/buffer_size_kb)
put_back() {
  echo 0 > $TRACEFS/tracing_on; echo > $TRACEFS/set_event
  echo "$clock0" > $TRACEFS/trace_clock; echo "$kb0" > $TRACEFS/buffer_size_kb
  rm -rf "$OUT"
}
trap put_back EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The killed test: changes tracefs as a recording does, then dies without its cleanup.
other_clock=$([ "$clock0" = global ] && echo local || echo global)
bash -c '. "$DIR/probes_common.bash"
         echo '"$other_clock"' > $TRACEFS/trace_clock
         echo $((kb_before + 8)) > $TRACEFS/buffer_size_kb
         echo 1 > $TRACEFS/events/sched/sched_switch/enable
         echo 1 > $TRACEFS/tracing_on
         kill -9 $$' probes_killed_child "$TRAK" || true
[ "$(sed 's/.*\[\(.*\)\].*/\1/' $TRACEFS/trace_clock)" = "$other_clock" ] ||
  fail "the killed test did not change trace_clock: the test proves nothing"
[ "$(cat "$OUT/found")" = "$clock0 $kb0" ] || fail "found-state file: '$(cat "$OUT/found" 2>&1)'"

# The next test: finds tracefs as the killed test found it, and leaves it so.
bash -c '. "$DIR/probes_common.bash"
         check_restored "after a killed test"
         echo "$clock_before $kb_before" > "$TRAK_TRACEFS_FOUND.seen"' probes_next "$TRAK" ||
  fail "the test after a killed one"
[ "$(cat "$OUT/found.seen")" = "$clock0 $kb0" ] ||
  fail "the next test took '$(cat "$OUT/found.seen")' as the state found, not '$clock0 $kb0'"
[ ! -e "$OUT/found" ] || fail "the found-state file outlived a clean cleanup"
[ "$(cat $TRACEFS/tracing_on)" = 0 ] && [ -z "$(cat $TRACEFS/set_event)" ] ||
  fail "tracing or events left on"
[ "$(sed 's/.*\[\(.*\)\].*/\1/' $TRACEFS/trace_clock) $(sed 's/ .*//' $TRACEFS/buffer_size_kb)" = "$clock0 $kb0" ] ||
  fail "tracefs not as found"
echo "ok: a killed test's changes undone by the next ($clock0, $kb0 KB)"
