#!/usr/bin/env bash
# libtrak.so is built with hidden visibility: check that it exports the public API (every
# TRAK_API function declared in include/trak/) and nothing internal (trak__*).
set -euo pipefail
BIN=${TRAK_BINARY_DIR:?}
SRC=${TRAK_SOURCE_DIR:?}
lib="$BIN/libtrak.so"
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort)
declared=$(grep -ho 'TRAK_API [^;]*' "$SRC"/include/trak/*.h | grep -o 'trak_[a-z0-9_]*(' | tr -d '(' | sort -u)
[ -n "$declared" ] || { echo "FAIL: found no TRAK_API declarations" >&2; exit 1; }
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
[ -z "$missing" ] || { echo "FAIL: declared but not exported: $missing" >&2; exit 1; }
internal=$(echo "$exported" | grep '^trak__' || true)
[ -z "$internal" ] || { echo "FAIL: internal symbols exported: $internal" >&2; exit 1; }
echo "shared_library: $(echo "$declared" | wc -l) public functions exported, none internal"
