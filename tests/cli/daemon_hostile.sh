#!/usr/bin/env bash
# Hostile clients of `trak daemon` (issue #15, cases 4 and 5): 200 idle connections that never
# say hello do not lock the daemon out (a hello deadline frees their slots, `trak status` says
# "daemon busy" meanwhile, refusals are logged at most once a second), and a producer that
# claims 38,868,714,103 lost packets is believed only up to what it could have written.
set -u
TRAK=$1
GEN=${HOSTILE_GEN:?}
PRODUCER=$TRAK_BINARY_DIR/example_system_producer
. "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"
export TRAK_SOCKET=$WORK/trak.sock
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
"$TRAK" daemon 2>"$WORK/daemon.log" & pids+=($!)
for _ in $(seq 50); do [ -S "$TRAK_SOCKET" ] && break; sleep 0.1; done

# 4. 200 idle clients, held open for 5 s.
"$GEN" idle 200 >"$WORK/idle.out" & pids+=($!)
sleep 0.5
if "$TRAK" status >"$WORK/status.out" 2>&1; then
  : # the deadline may already have freed slots
else
  expect_lines "$WORK/status.out" "daemon busy: "
fi
sleep 1.5 # past the hello deadline: the idle connections are gone
"$PRODUCER" one 20 >/dev/null 2>&1 & pids+=($!)
sleep 0.5
timeout 30 "$TRAK" record -o "$WORK/rec.pb" --time 1s 2>"$WORK/record.err" ||
  { echo "FAIL: record with 200 idle clients around:"; cat "$WORK/record.err"; fail=1; }
n=$("$TRAK" query "$WORK/rec.pb" "select count(*) from slice" | tail -1)
[ "${n:-0}" -gt 0 ] || { echo "FAIL: the recording holds no slices of the producer"; fail=1; }
lines=$(grep -c "refused" "$WORK/daemon.log")
[ "$lines" -le 5 ] || { echo "FAIL: $lines refusal log lines for one burst"; fail=1; }

# 5. A lying loss report.
timeout 30 "$TRAK" record -o "$WORK/lie.pb" --time 2s 2>"$WORK/lie.err" & rec=$!
sleep 0.5
"$GEN" fake_loss 38868714103 || { echo "FAIL: the fake producer could not connect"; fail=1; }
wait $rec
lost=$(sed -n 's/.* \([0-9]*\) packets lost$/\1/p' "$WORK/lie.err")
[ -n "$lost" ] && [ "$lost" -lt 1000000000 ] ||
  { echo "FAIL: the trace believes the fake loss: $(cat "$WORK/lie.err")"; fail=1; }
expect_lines "$WORK/daemon.log" "claims 38868714103 lost packets, more than it could have written"
[ $fail = 0 ] && echo "the daemon survives hostile clients"
exit $fail
