#!/usr/bin/env bash
# The log-to-trace example of docs/writer.md builds, runs and writes a trace protoc decodes
# with the slices, the instant and the counter of its sample log.
set -euo pipefail
EXAMPLE=$TRAK_BINARY_DIR/example_log_to_trace
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$EXAMPLE" "$TMP/log.pb" > "$TMP/out"
grep -q '9 events' "$TMP/out" || { echo "FAIL: $(cat "$TMP/out")"; exit 1; }
"$PROTOC" --decode=perfetto.protos.Trace -I "$TRAK_SOURCE_DIR/protos" \
  "$TRAK_SOURCE_DIR/protos/trace.proto" < "$TMP/log.pb" > "$TMP/log.txt"
for want in 'thread_name: "io"' 'name: "load config"' 'type: TYPE_INSTANT' 'counter_value: 3' 'unit: UNIT_COUNT'; do
  grep -q "$want" "$TMP/log.txt" || { echo "FAIL: missing $want"; exit 1; }
done
# A log that goes back in time is refused line by line, and the rest still converts.
printf '5 main start a\n4 main stop\n6 main stop\n' > "$TMP/bad.log"
if "$EXAMPLE" "$TMP/bad.pb" "$TMP/bad.log" 2> "$TMP/err"; then echo "FAIL: bad log accepted"; exit 1; fi
grep -q 'line 2: slice_end at 4000000 on track 3 \[thread 1 "main"\]: timestamp goes backwards' "$TMP/err" ||
  { echo "FAIL: $(cat "$TMP/err")"; exit 1; }
# docs/writer.md shows the example verbatim.
awk '/^## Example: a small log into a trace/{f=1} f&&/^```c$/{c=1;next} c&&/^```$/{exit} c' \
  "$TRAK_SOURCE_DIR/docs/writer.md" > "$TMP/doc_example.c"
cmp -s "$TMP/doc_example.c" "$TRAK_SOURCE_DIR/examples/log_to_trace.c" ||
  { echo "FAIL: docs/writer.md and examples/log_to_trace.c differ"; exit 1; }
echo ok
