#!/bin/bash
# The trace processor's folders keep their layering (src/processor/README.md): no cycle between
# import/, its format folders, tables/, sql/, analysis/ and export/, and no importer header
# included by tables/, sql/, analysis/ or export/ (scripts/processor_layers.py reads the
# #include lines). The trak binary ($1) is not used.
set -u
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
out=$(python3 "$TRAK_SOURCE_DIR/scripts/processor_layers.py" "$TRAK_SOURCE_DIR")
rc=$?
[ -n "$out" ] && echo "$out"
if [ $rc != 0 ]; then echo "FAIL: the processor's include layering is broken (above)"; exit 1; fi
echo "PASS: no include cycle between the processor's folders"
