#!/bin/bash
# `trak query --format csv|json|tp` read back by Python's csv and json modules
# (tests/cli/output_formats.py).
set -u
exec python3 "$TRAK_SOURCE_DIR/tests/cli/output_formats.py" "$1" \
  "$TRAK_SOURCE_DIR/tests/data/seed/01_thread_slices.pbtxt"
