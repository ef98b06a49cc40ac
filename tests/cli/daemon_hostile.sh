#!/usr/bin/env bash
# Hostile clients of `trak daemon` (issue #15, cases 4 and 5): 200 idle connections that never
# say hello do not lock the daemon out (a hello deadline frees their slots, refusals are logged
# at most once a second); a uid at its quota gets a clear "daemon busy" and its slots back as
# soon as its connections close; a producer that lies about its losses and scribbles on its
# chunk headers is believed only as far as the packets it delivered vouch for.
set -u
TRAK=$1
GEN=${HOSTILE_GEN:?}
PRODUCER=$TRAK_BINARY_DIR/example_system_producer
. "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"
export TRAK_SOCKET=$WORK/trak.sock
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
"$TRAK" daemon 2>"$WORK/daemon.log" & daemon=$!
pids+=($daemon)
for _ in $(seq 50); do [ -S "$TRAK_SOCKET" ] && break; sleep 0.1; done

# 4. A uid at its quota (48 producers that said hello): `trak status` exits 1 saying why.
mkfifo "$WORK/hold.ctl"
"$GEN" hold 48 <"$WORK/hold.ctl" >"$WORK/hold.out" & pids+=($!)
exec 7>"$WORK/hold.ctl"
for _ in $(seq 300); do [ -s "$WORK/hold.out" ] && break; sleep 0.1; done
expect_lines "$WORK/hold.out" "ready"
"$TRAK" status >"$WORK/status.out" 2>&1
rc=$?
[ $rc = 1 ] || { echo "FAIL: status at the uid's quota exits $rc, not 1"; fail=1; }
expect_lines "$WORK/status.out" "daemon busy: 48 clients (48 of uid $(id -u); at most 64, 48 per uid)"
# A producer refused there backs off (100 ms, doubling to 5 s) instead of retrying every few
# ms, and says nothing about it: the first refusal line the daemon logs after it started (at
# most one a second, with the count since the last) counts a handful of attempts. A slower
# machine only makes fewer.
holder=${pids[-1]}
mark=$(wc -l <"$WORK/daemon.log")
"$PRODUCER" patient 60 >/dev/null 2>"$WORK/patient.err" 7>&- & patient=$!
pids+=($patient)
for _ in $(seq 600); do [ "$(wc -l <"$WORK/daemon.log")" -gt "$mark" ] && break; sleep 0.1; done
tries=$(tail -n +$((mark + 1)) "$WORK/daemon.log" | sed -n 's/.*refused \([0-9]*\) connection.*/\1/p' | head -1)
[ -n "$tries" ] && [ "$tries" -le 20 ] ||
  { echo "FAIL: a refused producer retried $tries times before the next log line"; fail=1; }
# Their slots are free once they close: the next status is answered, and the producer gets in.
exec 7>&-
wait "$holder"
"$TRAK" status >"$WORK/status2.out" 2>&1 ||
  { echo "FAIL: status after the holder closed:"; cat "$WORK/status2.out"; fail=1; }
for _ in $(seq 600); do
  "$TRAK" status 2>/dev/null | grep -q "patient" && break
  sleep 0.1
done
"$TRAK" status 2>&1 | grep -q "patient" || { echo "FAIL: the refused producer never got in"; fail=1; }
[ -s "$WORK/patient.err" ] && { echo "FAIL: the refused producer logged:"; cat "$WORK/patient.err"; fail=1; }
kill $patient
wait $patient 2>/dev/null

# 3 (of the last note). A client that closes its connections and connects again gets a slot
# even when the hang-ups and its new connection reach the daemon in the same poll (the
# daemon is stopped meanwhile): the quota is released on hang-up, before refusing.
for round in 1 2 3; do
  DAEMON_PID=$daemon "$GEN" reconnect 48 >"$WORK/reconnect.out" 2>&1 ||
    { echo "FAIL: reconnect round $round: $(cat "$WORK/reconnect.out")"; fail=1; }
  kill -CONT $daemon # whatever became of the helper, the daemon runs on
done

# 4. 200 idle clients, held open for 5 s; after the hello deadline a real producer and
# `trak record` work although the idle connections are still open.
mark=$(wc -l <"$WORK/daemon.log")
"$GEN" idle 200 >"$WORK/idle.out" & pids+=($!)
for _ in $(seq 300); do [ -s "$WORK/idle.out" ] && break; sleep 0.1; done
if "$TRAK" status >"$WORK/status.out" 2>&1; then
  : # on a loaded machine the deadline may already have freed the slots
else
  expect_lines "$WORK/status.out" "daemon busy: "
fi
sleep 1.5 # past the hello deadline: the idle connections are gone
"$PRODUCER" one 20 >/dev/null 2>&1 & pids+=($!)
sleep 0.5
timeout 60 "$TRAK" record -o "$WORK/rec.pb" --time 1s 2>"$WORK/record.err" ||
  { echo "FAIL: record with 200 idle clients around:"; cat "$WORK/record.err"; fail=1; }
n=$("$TRAK" query "$WORK/rec.pb" "select count(*) from slice" | tail -1)
[ "${n:-0}" -gt 0 ] || { echo "FAIL: the recording holds no slices of the producer"; fail=1; }
lines=$(tail -n +$((mark + 1)) "$WORK/daemon.log" | grep -c "refused")
[ "$lines" -le 5 ] || { echo "FAIL: $lines refusal log lines for one burst"; fail=1; }

# lost_in FILE: the loss count `trak record` printed to FILE.
lost_in() { sed -n 's/.* \([0-9]*\) packets lost$/\1/p' "$1"; }
# stat_of TRACE NAME: the value of stats row NAME.
stat_of() { "$TRAK" query "$1" "select value from stats where name = '$2'" 2>/dev/null | tail -1; }

# 5. A lying loss report from a producer that delivers nothing: only the 10,000 of grace.
timeout 60 "$TRAK" record -o "$WORK/lie.pb" --time 2s 2>"$WORK/lie.err" & rec=$!
sleep 0.5
"$GEN" fake_loss 38868714103 || { echo "FAIL: the fake producer could not connect"; fail=1; }
wait $rec
lost=$(lost_in "$WORK/lie.err")
[ "$lost" = 10000 ] || { echo "FAIL: the lie counted as '$lost', not 10000: $(cat "$WORK/lie.err")"; fail=1; }
expect_lines "$WORK/daemon.log" \
  "claims 38868704103 more lost packets than the 0 packets it delivered vouch for (100 each, plus 10000)"

# 5. A producer that scribbles on its chunk headers (a new writer id and a jumping chunk index
# per chunk, drop marks on every packet) and claims 2^62 lost while away and 2^63 in every
# other commit: the count is its 200 delivered packets' worth (100 each, plus 10,000) and the
# packets withheld after its sequences' gaps (at most the 200), in record and in the trace.
timeout 60 "$TRAK" record -o "$WORK/scribble.pb" --time 2s 2>"$WORK/scribble.err" & rec=$!
sleep 0.5
delivered=$("$GEN" scribbler 20) || { echo "FAIL: the scribbler could not join"; fail=1; }
wait $rec
lost=$(lost_in "$WORK/scribble.err")
[ "$delivered" = 200 ] && [ "${lost:-0}" -ge 30000 ] && [ "${lost:-0}" -le 30200 ] ||
  { echo "FAIL: scribbler: $delivered delivered, $lost counted: $(cat "$WORK/scribble.err")"; fail=1; }
got=$(stat_of "$WORK/scribble.pb" traced_buf_trace_writer_packet_loss)
[ "$got" = "$lost" ] || { echo "FAIL: the trace says $got lost, record $lost"; fail=1; }
"$TRAK" check "$WORK/scribble.pb" >"$WORK/scribble.check" 2>&1
[ $? = 1 ] || { echo "FAIL: check passes the scribbled trace"; fail=1; }
expect_lines "$WORK/scribble.check" "[traced_buf_trace_writer_packet_loss]"
[ $fail = 0 ] && echo "the daemon survives hostile clients"
exit $fail
