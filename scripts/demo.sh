#!/usr/bin/env bash
# `make demo`: shows trak working end to end. An instrumented program (examples/sdk_demo.c)
# records a trace with the SDK; another (examples/console_demo.c) prints its events live through
# the console interceptor; then the examples of the synthetic-trace guide
# (tests/data/seed/) go text -> binary -> text, with protoc agreeing with our encoding.
set -euo pipefail
cd "$(dirname "$0")/.."
TRAK=build/trak
out=build/demo
mkdir -p "$out"

echo "== trak $("$TRAK" --version | cut -d' ' -f2): recording a trace with the SDK (examples/sdk_demo.c)"
build/example_sdk_demo "$out/sdk_demo.pftrace"
printf '  %s: %d bytes, %d packets\n' "$out/sdk_demo.pftrace" "$(wc -c < "$out/sdk_demo.pftrace")" \
  "$("$TRAK" dump "$out/sdk_demo.pftrace" | grep -c '^packet {')"
echo
echo "== trak query: where did the time go? (slices by total duration)"
"$TRAK" query "$out/sdk_demo.pftrace" --format table \
  "select name, count(*) as n, sum(dur) / 1000 as total_us, max(dur) / 1000 as max_us
   from slice group by name order by total_us desc"
echo
echo "== trak query: threads and what ran on them"
"$TRAK" query "$out/sdk_demo.pftrace" --format table \
  "select t.tid, t.name as thread, count(s.id) as slices
   from thread t join thread_track tt using (utid) join slice s on s.track_id = tt.id
   group by t.utid order by slices desc"
echo
echo "== trak metrics: per-name slice statistics (a built-in metric, docs/analysis.md)"
"$TRAK" metrics "$out/sdk_demo.pftrace" --run slice_stats
echo
echo "== a CSV timeline from elsewhere becomes a trace (trak convert, the synthetic writer)"
"$TRAK" convert tests/data/writer/events.csv "$out/events.pb"
"$TRAK" query "$out/events.pb" --format table \
  "select ts, dur, name, depth from slice order by ts limit 6"
echo
echo "== the console interceptor: events printed as they happen (examples/console_demo.c)"
build/example_console_demo

echo
echo "== converting the seed examples to binary traces"
for text in tests/data/seed/*.pbtxt; do
  name=$(basename "$text" .pbtxt)
  "$TRAK" convert "$text" "$out/$name.pb"
  printf '  %-28s %6d bytes text -> %5d bytes binary\n' "$name" \
    "$(wc -c < "$text")" "$(wc -c < "$out/$name.pb")"
done

echo
echo "== trak dump $out/07_flows.pb (first packets)"
"$TRAK" dump "$out/07_flows.pb" | head -24

echo
echo "== round trip: binary -> text -> binary is byte-identical"
"$TRAK" convert "$out/07_flows.pb" "$out/07_flows.again.pbtxt"
"$TRAK" convert "$out/07_flows.again.pbtxt" "$out/07_flows.again.pb"
cmp "$out/07_flows.pb" "$out/07_flows.again.pb" && echo "  identical"

echo
echo "== protoc reads trak's binary the same as its own encoding"
protoc -I protos --decode=perfetto.protos.Trace trace.proto < "$out/09_interning.pb" \
  > "$out/09.ours.txt"
protoc -I protos --encode=perfetto.protos.Trace trace.proto < tests/data/seed/09_interning.pbtxt \
  | protoc -I protos --decode=perfetto.protos.Trace trace.proto > "$out/09.protoc.txt"
cmp "$out/09.ours.txt" "$out/09.protoc.txt" && echo "  identical"
echo
scripts/demo_system.sh
