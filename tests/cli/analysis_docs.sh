#!/usr/bin/env bash
# Every ```c block of docs/analysis.md is a complete program taking a trace path: compile it
# against the public headers, libtrak_processor.a and libtrak.a (with the build's sanitizers, if
# any) and run it on tests/data/analysis/app.pbtxt; it must print the inflate description and
# the long-slice alerts.
set -euo pipefail
doc="$TRAK_SOURCE_DIR/docs/analysis.md"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
san=$(sed -n 's/^TRAK_SANITIZE:STRING=//p' "$TRAK_BINARY_DIR/CMakeCache.txt")
flags=(-std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter)
[ -n "$san" ] && flags+=("-fsanitize=$san")
awk -v dir="$tmp" '
  /^```c$/ { n++; file = sprintf("%s/ex%02d.c", dir, n); inblock = 1; next }
  /^```$/ { inblock = 0; next }
  inblock { print > file }
' "$doc"
count=0
for src in "$tmp"/ex*.c; do
  exe="${src%.c}"
  if ! cc "${flags[@]}" -I "$TRAK_SOURCE_DIR/include" -I "$TRAK_BINARY_DIR/gen" "$src" \
       "$TRAK_BINARY_DIR/libtrak_processor.a" "$TRAK_BINARY_DIR/libtrak.a" \
       -lsqlite3 -lz -lm -lpthread -o "$exe" 2> "$tmp/err"; then
    echo "docs/analysis.md example $(basename "$src") does not compile:"; cat "$tmp/err"; exit 1
  fi
  "$exe" "$TRAK_SOURCE_DIR/tests/data/analysis/app.pbtxt" > "$tmp/out" ||
    { echo "docs/analysis.md example $(basename "$src") failed"; exit 1; }
  grep -q "LayoutInflater" "$tmp/out" || { echo "no description printed"; cat "$tmp/out"; exit 1; }
  grep -q "took" "$tmp/out" || { echo "no alert printed"; cat "$tmp/out"; exit 1; }
  count=$((count + 1))
done
[ "$count" -ge 1 ] || { echo "expected a C example, found none"; exit 1; }
echo "ok: $count examples compiled and ran"
