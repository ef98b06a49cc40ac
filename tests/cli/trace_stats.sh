#!/bin/bash
# `trak check` lists the losses a trace's trace_stats packet reports (data_loss rows of the
# stats table) and exits 1; a trace_stats packet that reports none is no problem.
set -u
TRAK=$1
. "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"

encode <"$TRAK_SOURCE_DIR/tests/data/golden/metadata/trace_stats.pbtxt" >"$WORK/lossy.pb" || exit 1
"$TRAK" check "$WORK/lossy.pb" >"$WORK/out.txt"
rc=$?
if [ $rc != 1 ]; then echo "FAIL: check of a lossy trace exits $rc, not 1"; fail=1; fi
expect_lines "$WORK/out.txt" 'traced_buf_trace_writer_packet_loss = 17 in buffer 0' \
  '[traced_buf_patches_failed]' '[traced_flushes_failed]' '[traced_chunks_discarded]' '8 errors'

encode >"$WORK/clean.pb" <<'PBTXT' || exit 1
packet { track_descriptor { uuid: 1 name: "t" } }
packet { trusted_packet_sequence_id: 2 timestamp: 10 track_event { type: TYPE_INSTANT track_uuid: 1 name: "e" } }
packet { trusted_packet_sequence_id: 1 timestamp: 20
  trace_stats { buffer_stats { buffer_size: 4096 trace_writer_packet_loss: 0 } producers_connected: 1 } }
PBTXT
if ! "$TRAK" check "$WORK/clean.pb" >"$WORK/out.txt"; then
  echo "FAIL: check of a trace without losses fails:"; cat "$WORK/out.txt"; fail=1
fi
# What the trace config says about a trace written into a file, and the filter's errors: each
# line names the stat and says what it means.
encode <"$TRAK_SOURCE_DIR/tests/data/golden/metadata/trace_stats_buffers.pbtxt" >"$WORK/config.pb" || exit 1
"$TRAK" check "$WORK/config.pb" >"$WORK/out.txt"
rc=$?
if [ $rc != 1 ]; then echo "FAIL: check of a write_into_file trace exits $rc, not 1"; fail=1; fi
expect_lines "$WORK/out.txt" \
  'trace_config: config_write_into_file_no_flush = 1: The trace was written into a file' \
  'config_write_into_file_discard = 1 in buffer 2: ' \
  'long_trace_mode_bytes_overwritten = 40 in buffer 0: Bytes a ring buffer overwrote' \
  'filter_errors = 1: Packets the trace filter could not parse.'

[ $fail = 0 ] && echo "trace_stats checks pass"
exit $fail
