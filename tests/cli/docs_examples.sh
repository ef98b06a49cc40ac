#!/bin/bash
# Docs as tests: the marked shell and SQL blocks of README.md and docs/*.md run with the built
# trak and must exit and print as shown (tests/cli/docs_examples.py).
set -u
exec python3 "$TRAK_SOURCE_DIR/tests/cli/docs_examples.py" "$1" "$TRAK_SOURCE_DIR" 23
