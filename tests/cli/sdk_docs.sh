#!/usr/bin/env bash
# Every ```c block of docs/sdk.md is a complete program: compile it against the public headers
# and libtrak.a (with the build's sanitizers, if any) and run it.
set -euo pipefail
doc="$TRAK_SOURCE_DIR/docs/sdk.md"
lib="$TRAK_BINARY_DIR/libtrak.a"
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
  if ! cc "${flags[@]}" -I "$TRAK_SOURCE_DIR/include" -I "$TRAK_BINARY_DIR/gen" "$src" "$lib" \
       -lpthread -o "$exe" 2> "$tmp/err"; then
    echo "docs/sdk.md example $(basename "$src") does not compile:"; cat "$tmp/err"; exit 1
  fi
  "$exe" > /dev/null || { echo "docs/sdk.md example $(basename "$src") failed"; exit 1; }
  count=$((count + 1))
done
[ "$count" -ge 8 ] || { echo "expected at least 8 examples, found $count"; exit 1; }
echo "ok: $count examples compiled and ran"
