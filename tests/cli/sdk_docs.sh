#!/usr/bin/env bash
# Every ```c block of the SDK's guides (docs/sdk.md, docs/data-sources.md, docs/interceptors.md)
# is a complete program, and so is every ```cpp block (C++17, <trak/perfetto.h>): compile it
# against the public headers and libtrak.a (with the build's sanitizers, if any) and run it in a
# scratch directory; `trak check` finds no problem in the
# traces the examples write there.
set -euo pipefail
TRAK=$1
lib="$TRAK_BINARY_DIR/libtrak.a"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
san=$(sed -n 's/^TRAK_SANITIZE:STRING=//p' "$TRAK_BINARY_DIR/CMakeCache.txt")
flags=(-std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter)
cxxflags=(-std=c++17 -Wall -Wextra -Wpedantic -Werror)
[ -n "$san" ] && flags+=("-fsanitize=$san") && cxxflags+=("-fsanitize=$san")

# check DOC MIN [clean]: compiles and runs each example of docs/DOC, expecting at least MIN of
# them; with `clean`, the traces they write must have no problem.
check() {
  local doc="$TRAK_SOURCE_DIR/docs/$1" dir="$tmp/${1%.md}"
  mkdir -p "$dir"
  awk -v dir="$dir" '
    /^```c$/ { n++; file = sprintf("%s/ex%02d.c", dir, n); inblock = 1; next }
    /^```cpp$/ { n++; file = sprintf("%s/ex%02d.cpp", dir, n); inblock = 1; next }
    /^```$/ { inblock = 0; next }
    inblock { print > file }
  ' "$doc"
  local count=0 src exe
  for src in "$dir"/ex*.c "$dir"/ex*.cpp; do
    [ -e "$src" ] || continue
    exe="${src%.*}"
    local compile=(cc "${flags[@]}")
    [ "${src##*.}" = cpp ] && compile=(c++ "${cxxflags[@]}")
    if ! "${compile[@]}" -I "$TRAK_SOURCE_DIR/include" -I "$TRAK_BINARY_DIR/gen" "$src" "$lib" \
         -lpthread -o "$exe" 2> "$tmp/err"; then
      echo "docs/$1 example $(basename "$src") does not compile:"; cat "$tmp/err"; exit 1
    fi
    rm -f "$dir"/*.pftrace
    (cd "$dir" && "$exe" > /dev/null) || { echo "docs/$1 example $(basename "$src") failed"; exit 1; }
    # The traces it writes are clean: no problem `trak check` can find.
    local trace
    for trace in "$dir"/*.pftrace; do
      [ -e "$trace" ] && [ "${3:-}" = clean ] || break
      "$TRAK" check --allow-empty "$trace" > "$tmp/check" 2>&1 && grep -q ' 0 errors, 0 warnings' "$tmp/check" &&
        ! grep -q 'trak check: warning' "$tmp/check" ||
        { echo "docs/$1 example $(basename "$src") writes a trace with problems:"; cat "$tmp/check"; exit 1; }
    done
    count=$((count + 1))
  done
  [ "$count" -ge "$2" ] || { echo "docs/$1: expected at least $2 examples, found $count"; exit 1; }
  echo "ok: docs/$1: $count examples compiled and ran"
}

check sdk.md 12 clean
check data-sources.md 4 clean
check interceptors.md 5 clean
check system-tracing.md 1 clean
