# Shared set-up of the probes tests (sourced, not run): skips (exit 77) without root or
# tracefs, starts a daemon and `trak probes` on private socket and state paths, and on exit
# stops them and checks that tracefs is back as it was found.
TRAK=$1
TMP=$(mktemp -d)
pids=()
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; rm -rf "$TMP"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (tracefs)"
TRACEFS=/sys/kernel/tracing
if [ ! -e $TRACEFS/tracing_on ]; then
  mount -t tracefs nodev $TRACEFS 2>/dev/null || skip "tracefs is not mounted and cannot be"
fi
[ -w $TRACEFS/tracing_on ] || skip "tracefs is not writable"
# tracefs is one per machine: tests of two builds (or two checkouts) take turns. (Two readers
# of the kernel's buffers would each get part of the events; trak probes itself refuses a
# second recording, as it locks the tracefs directory: the tests wait instead.)
# A caller that already holds the lock (cli/probes_killed.sh) says so in TRAK_TRACEFS_LOCKED.
if [ -z "${TRAK_TRACEFS_LOCKED:-}" ]; then
  exec 9> /tmp/trak-tracefs-tests.lock
  flock -w 900 9 || fail "tracefs stayed busy with another test run for 15 minutes"
fi
export TRAK_SOCKET=$TMP/trak.sock TRAK_PROBES_STATE=$TMP/probes.state
# The state tracefs was found in, kept on disk until a test's cleanup has put it back: a test
# killed before its cleanup ran (SIGKILL: no trap) leaves the file, and the next test restores
# what that one found instead of taking the changed tracefs as the machine's state.
FOUND=${TRAK_TRACEFS_FOUND:-/tmp/trak-tracefs-tests.found}
restore_found() {
  echo 0 > $TRACEFS/tracing_on; echo > $TRACEFS/set_event
  echo "$clock_before" > $TRACEFS/trace_clock; echo "$kb_before" > $TRACEFS/buffer_size_kb
}
if [ -s "$FOUND" ]; then
  read -r clock_before kb_before < "$FOUND"
  restore_found
  echo > $TRACEFS/trace
else
  clock_before=$(sed 's/.*\[\(.*\)\].*/\1/' $TRACEFS/trace_clock)
  kb_before=$(sed 's/ .*//' $TRACEFS/buffer_size_kb)
  echo "$clock_before $kb_before" > "$FOUND"
fi

# The state tracefs must be in whenever no recording runs.
check_restored() {
  [ "$(cat $TRACEFS/tracing_on)" = 0 ] || fail "$1: tracing_on is $(cat $TRACEFS/tracing_on)"
  [ -z "$(cat $TRACEFS/set_event)" ] || fail "$1: events left on: $(head -3 $TRACEFS/set_event)"
  clock=$(sed 's/.*\[\(.*\)\].*/\1/' $TRACEFS/trace_clock)
  [ "$clock" = "$clock_before" ] || fail "$1: trace_clock $clock, was $clock_before"
  kb=$(sed 's/ .*//' $TRACEFS/buffer_size_kb)
  [ "$kb" = "$kb_before" ] || fail "$1: buffer_size_kb $kb, was $kb_before"
  [ ! -e "$TRAK_PROBES_STATE" ] || fail "$1: state file left"
}

cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  # Whatever happened, tracefs is left as it was found.
  restore_found
  rm -f "$FOUND"
  rm -rf "$TMP"
}
trap cleanup EXIT

# Starts trak daemon (arguments: its options) and waits for its socket.
start_daemon() {
  rm -f "$TRAK_SOCKET"
  "$TRAK" daemon "$@" 2>> "$TMP/daemon.log" & DAEMON=$!; pids+=($DAEMON)
  for _ in $(seq 50); do [ -S "$TRAK_SOCKET" ] && break; sleep 0.1; done
}
# Starts trak probes and waits until the daemon lists it.
start_probes() {
  "$TRAK" probes 2>> "$TMP/probes.log" & PROBES=$!; pids+=($PROBES)
  for _ in $(seq 50); do
    "$TRAK" status 2>/dev/null | grep -q linux.ftrace && return 0
    sleep 0.1
  done
  fail "trak probes did not register: $(cat "$TMP/probes.log")"
}
# Waits (up to 30 s: a loaded machine is slow) until this test's probes own ftrace (its private
# state file exists) and the kernel records. tracing_on alone could be another user's.
wait_recording() {
  for _ in $(seq 300); do
    [ -e "$TRAK_PROBES_STATE" ] && [ "$(cat $TRACEFS/tracing_on)" = 1 ] && return 0
    sleep 0.1
  done
  return 1
}
export PYTHONPATH=$TRAK_SOURCE_DIR/tests/cli
