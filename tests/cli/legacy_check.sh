#!/bin/bash
# `trak check` names what the importer does not map or rejects in TrackEvent.legacy_event and
# in typed arguments, with the packet and the phase or field: each message below must appear,
# and the check exits 0: track_event_parser_errors is an info stat, as Perfetto rates it.
set -u
TRAK=$1
. "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"

encode <"$TRAK_SOURCE_DIR/tests/data/golden/legacy/legacy_events.pbtxt" >"$WORK/legacy.pb" || exit 1
"$TRAK" check "$WORK/legacy.pb" >"$WORK/out.txt"
rc=$?
if [ $rc != 0 ]; then echo "FAIL: check of the legacy trace exits $rc, not 0"; fail=1; fi
expect_lines "$WORK/out.txt" \
  "phase 'b' has no unscoped_id, global_id or local_id; dropped [track_event_parser_errors]" \
  "phase 'B' has no thread; dropped [track_event_parser_errors]" \
  'metadata (M) legacy event "thread_sort_index" is not imported' \
  'counter (C) legacy event with a value that is not a number' \
  'legacy_event.thread_duration_us without a thread time'

encode <"$TRAK_SOURCE_DIR/tests/data/golden/track_event/log_messages.pbtxt" >"$WORK/log.pb" || exit 1
"$TRAK" check "$WORK/log.pb" >"$WORK/log.txt"
expect_lines "$WORK/log.txt" \
  'log_message on an event without a thread; left out of its args' \
  'log message body iid 7 is not interned on sequence 1'
# Each stat counted is explained once, in words, after the problems.
encode <"$TRAK_SOURCE_DIR/tests/data/golden/flows/flows_v2.pbtxt" >"$WORK/flows.pb" || exit 1
"$TRAK" check "$WORK/flows.pb" >"$WORK/flows.txt"
expect_lines "$WORK/flows.txt" \
  'flow 9 begins again while open [flow_duplicate_id]' \
  'flow_duplicate_id (1): Flows begun (legacy FLOW_OUT) with the id of a flow still open' \
  'flow_end_without_start (1): Flow ends (legacy FLOW_IN) for flows that never began' \
  'flow_without_direction (1): legacy_event.bind_id without a valid flow_direction'
[ $fail = 0 ] && echo "legacy and typed-argument diagnostics ok"
exit $fail
