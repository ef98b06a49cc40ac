#!/bin/bash
# `trak shell` on a terminal: Ctrl-C and tab completion through a pty (tests/cli/shell_tty.py).
set -u
exec python3 "$TRAK_SOURCE_DIR/tests/cli/shell_tty.py" "$1" "$TRAK_SOURCE_DIR/tests/data/seed/01_thread_slices.pbtxt"
