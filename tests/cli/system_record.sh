#!/usr/bin/env bash
# `trak daemon` and `trak record` with real producer processes: the demo scene (both processes
# in one trace), the socket's owner-only mode, `trak status`, the -c config form with a category filter,
# Ctrl-C ending a recording that still writes a valid trace, and a full disk reported clearly.
set -euo pipefail
TRAK=$1
PRODUCER=$TRAK_BINARY_DIR/example_system_producer
TMP=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
count() { "$TRAK" query "$1" "$2" | tail -n 1; }

# The demo scene.
TRAK=$TRAK PRODUCER=$PRODUCER OUT=$TMP timeout 30 "$TRAK_SOURCE_DIR/scripts/demo_system.sh" \
  > "$TMP/demo.out" 2>&1 || fail "demo: $(cat "$TMP/demo.out")"
grep -q ' server ' "$TMP/demo.out" && grep -q ' client ' "$TMP/demo.out" ||
  fail "demo: $(cat "$TMP/demo.out")"

export TRAK_SOCKET=$TMP/trak.sock
"$TRAK" daemon 2> "$TMP/daemon.log" & pids+=($!)
for _ in $(seq 50); do [ -S "$TRAK_SOCKET" ] && break; sleep 0.1; done
[ "$(stat -c %a "$TRAK_SOCKET")" = 600 ] || fail "socket mode $(stat -c %a "$TRAK_SOCKET")"
"$PRODUCER" one 20 & pids+=($!)
"$PRODUCER" two 20 & pids+=($!)
"$PRODUCER" a-producer-with-a-name-longer-than-sixteen 20 & pids+=($!)

# trak status: both producers with their data sources; no session yet; then one. The producers
# connect as the machine lets them: wait (up to 10 s) until all three have.
for _ in $(seq 100); do
  "$TRAK" status > "$TMP/status.out" || fail "status: $(cat "$TMP/status.out")"
  grep -q '^producers: 3' "$TMP/status.out" && break
  sleep 0.1
done
grep -q '^producers: 3' "$TMP/status.out" && grep -Eq ' one .* track_event' "$TMP/status.out" &&
  grep -Eq ' two .* track_event' "$TMP/status.out" && grep -q '^sessions: 0' "$TMP/status.out" ||
  fail "status: $(cat "$TMP/status.out")"
# A long name widens its column: every row's "sessions" value starts under the header's.
col=$(awk '/ sessions /{print index($0, " sessions ")}' "$TMP/status.out")
awk -v col="$col" 'NR > 2 && /track_event/ && substr($0, col, 1) != " " {bad = 1}
  NR > 2 && /track_event/ && substr($0, col + 1, 1) !~ /[0-9]/ {bad = 1} END {exit bad}' \
  "$TMP/status.out" || fail "status columns out of line: $(cat "$TMP/status.out")"
timeout 15 "$TRAK" record -o "$TMP/during.pb" --time 1s 2> /dev/null & rec=$!
sleep 0.5
"$TRAK" status > "$TMP/status2.out" || fail "status while recording"
grep -q '^sessions: 1' "$TMP/status2.out" || fail "status while recording: $(cat "$TMP/status2.out")"
wait $rec || fail "record during status"
if "$TRAK" status --socket "$TMP/none.sock" 2> "$TMP/st.err"; then fail "status without daemon"; fi
grep -q "no daemon" "$TMP/st.err" || fail "$(cat "$TMP/st.err")"

# -c: a text-format TraceConfig recording only "app" (slices, no instants).
cat > "$TMP/app.pbtxt" <<'CFG'
duration_ms: 500
buffers { size_kb: 8192 fill_policy: DISCARD }
data_sources { config { name: "track_event"
  track_event_config { enabled_categories: "app" disabled_categories: "*" } } }
CFG
timeout 15 "$TRAK" record -c "$TMP/app.pbtxt" -o "$TMP/app.pb" 2> "$TMP/rec.err" ||
  fail "record -c: $(cat "$TMP/rec.err")"
[ "$(count "$TMP/app.pb" "select count(distinct upid) from thread")" -ge 2 ] ||
  fail "record -c: not both producers"
[ "$(count "$TMP/app.pb" "select count(*) from slice where dur = 0")" = 0 ] ||
  fail "record -c: instants of a disabled category"
[ "$(count "$TMP/app.pb" "select count(*) from slice where name = 'handle'")" -gt 0 ] ||
  fail "record -c: no slices"

# Ctrl-C: no --time; SIGINT ends it and the trace is still written.
timeout 15 "$TRAK" record -o "$TMP/int.pb" --ring --buffer 4mb 2> "$TMP/int.err" & rec=$!
sleep 0.7
kill -INT $rec
wait $rec || fail "record after SIGINT: $(cat "$TMP/int.err")"
[ "$(count "$TMP/int.pb" "select count(*) from slice")" -gt 0 ] || fail "SIGINT: empty trace"
"$TRAK" check "$TMP/int.pb" > /dev/null || fail "SIGINT: trace does not check"

# A recorder killed outright: the daemon still finishes its file (the temporary one beside OUT,
# which the recorder can no longer rename) and carries on.
"$TRAK" record -o "$TMP/killed.pb" 2> /dev/null & rec=$!
sleep 0.5
kill -KILL $rec
wait $rec 2> /dev/null || true
[ ! -e "$TMP/killed.pb" ] || fail "killed recorder: OUT made before the session ended"
killed=$(ls "$TMP"/killed.pb.tmp.* 2> /dev/null | head -1)
for _ in $(seq 50); do [ -s "$killed" ] && break; sleep 0.1; done
[ "$(count "$killed" "select count(*) from slice")" -gt 0 ] || fail "killed recorder: no trace"

# A full disk: a clear error, not a hang.
if timeout 15 "$TRAK" record -o /dev/full --time 300ms 2> "$TMP/full.err"; then
  fail "record into /dev/full succeeded"
fi
grep -q 'No space left on device' "$TMP/full.err" || fail "full disk: $(cat "$TMP/full.err")"

# The daemon never replaces a file that is not a socket.
echo keep > "$TMP/file"
if timeout 5 "$TRAK" daemon --socket "$TMP/file" 2> "$TMP/notsock.err"; then fail "daemon on a file"; fi
grep -q "not a socket" "$TMP/notsock.err" && [ "$(cat "$TMP/file")" = keep ] ||
  fail "daemon on a file: $(cat "$TMP/notsock.err")"
# A second daemon on a live socket refuses to start.
if timeout 5 "$TRAK" daemon 2> "$TMP/second.err"; then fail "second daemon started"; fi
grep -q "already listens" "$TMP/second.err" || fail "second daemon: $(cat "$TMP/second.err")"

# Bad options and no daemon are reported.
if "$TRAK" record -o "$TMP/x.pb" --time banana 2> "$TMP/bad.err"; then fail "bad duration"; fi
grep -q "bad duration" "$TMP/bad.err" || fail "$(cat "$TMP/bad.err")"
if TRAK_SOCKET=$TMP/none.sock "$TRAK" record -o "$TMP/x.pb" --time 1s 2> "$TMP/none.err"; then
  fail "record without daemon"
fi
grep -q "no daemon" "$TMP/none.err" || fail "$(cat "$TMP/none.err")"
# The daemon stopping during a recording finishes the file and tells the recorder.
timeout 15 "$TRAK" record -o "$TMP/last.pb" 2> "$TMP/last.err" & rec=$!
sleep 0.5
kill -TERM "${pids[0]}"
wait $rec || fail "record when the daemon stops: $(cat "$TMP/last.err")"
[ "$(count "$TMP/last.pb" "select count(*) from slice")" -gt 0 ] || fail "daemon stop: no trace"
wait "${pids[0]}" || fail "daemon exit status $?"
[ ! -e "$TRAK_SOCKET" ] || fail "the daemon left its socket behind"
echo ok
