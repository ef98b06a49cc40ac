#!/usr/bin/env bash
# A trace written by the SDK (the sdk_demo example) decodes with protoc against our protos:
# every packet is valid perfetto.protos.Trace wire format, with the fields we expect; and
# `trak convert` to text and back gives the same bytes.
set -euo pipefail
demo="$TRAK_BINARY_DIR/example_sdk_demo"
[ -x "$demo" ] || { echo "missing $demo"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$demo" "$tmp/demo.pftrace" >/dev/null
"$PROTOC" --decode=perfetto.protos.Trace -I "$TRAK_SOURCE_DIR/protos" trace.proto \
  < "$tmp/demo.pftrace" > "$tmp/demo.txt"
for want in 'type: TYPE_SLICE_BEGIN' 'type: TYPE_SLICE_END' 'type: TYPE_COUNTER' \
            'name: "process"' 'flow_ids:' 'terminating_flow_ids:' 'debug_annotations' \
            'sequence_flags: 1' 'first_packet_on_sequence: true' 'unit: UNIT_COUNT' \
            'thread_name: "worker-0"' 'process_name: "sdk_demo"' 'is_incremental: true'; do
  grep -q -- "$want" "$tmp/demo.txt" || { echo "decoded trace lacks: $want"; exit 1; }
done
# protoc must not have left any field unparsed as unknown (numbers instead of names).
if grep -qE '^\s*[0-9]+: ' "$tmp/demo.txt"; then
  echo "unknown fields in the decoded trace:"; grep -nE '^\s*[0-9]+: ' "$tmp/demo.txt" | head
  exit 1
fi
# trak's own text format round trip reproduces the SDK's bytes exactly (canonical encoding).
"$1" convert "$tmp/demo.pftrace" "$tmp/demo.pbtxt"
"$1" convert "$tmp/demo.pbtxt" "$tmp/again.pb"
cmp "$tmp/demo.pftrace" "$tmp/again.pb" || { echo "text round trip changed the SDK's bytes"; exit 1; }
echo "ok: $(grep -c '^packet {' "$tmp/demo.txt") packets decoded"
