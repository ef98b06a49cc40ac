#!/usr/bin/env bash
# The system backend in one scene (part of `make demo`; tests/cli/system_record.sh runs it
# too): `trak daemon`, two producer processes (examples/system_producer.c) tracing through
# shared memory, `trak record` capturing both for a second, and a query showing each process.
# Everything it starts is stopped on exit, whatever happens.
set -euo pipefail
TRAK=${TRAK:-build/trak}
PRODUCER=${PRODUCER:-build/example_system_producer}
out=${OUT:-build/demo}
mkdir -p "$out"
dir=$(mktemp -d)
export TRAK_SOCKET=$dir/trak.sock
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

echo "== trak daemon on $TRAK_SOCKET, two producers (server, client), trak record for 1 s"
"$TRAK" daemon & pids+=($!)
for _ in $(seq 50); do [ -S "$TRAK_SOCKET" ] && break; sleep 0.1; done
# The producers run longer than the scene needs (cleanup stops them): on a loaded machine they
# may take a while to start, so the recording waits (up to 10 s) until both have connected.
"$PRODUCER" server 15 & pids+=($!)
TRAK_BACKEND=system "$PRODUCER" client 15 & pids+=($!) # connects through the environment
for _ in $(seq 100); do
  "$TRAK" status 2> /dev/null | grep -q '^producers: 2' && break
  sleep 0.1
done
timeout 15 "$TRAK" record -o "$out/system.pb" --time 1s --categories 'app,n*' & rec=$!
sleep 0.5
echo
echo "== trak status, while recording"
"$TRAK" status
wait $rec
echo
echo "== trak query: both processes in one trace"
"$TRAK" query "$out/system.pb" --format table \
  "select p.pid, p.name as process, count(*) as events
   from slice s join thread_track tt on s.track_id = tt.id join thread using (utid)
   join process p using (upid) group by p.upid order by p.name"
echo
echo "== the trace's own account of the session (its trace_stats packet)"
"$TRAK" query "$out/system.pb" --format table \
  "select name, value from stats where source = 'trace'
   and name in ('traced_producers_seen', 'traced_buf_chunks_written',
                'traced_buf_trace_writer_packet_loss') order by name"
