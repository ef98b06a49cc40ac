#!/usr/bin/env bash
# libtrak.so and libtrak_processor.so are built with hidden visibility: check that each exports
# the public API of its headers (every TRAK_API function: include/trak/processor.h for the
# processor, the other headers for libtrak) and nothing internal (trak__*). The processor
# carries a private copy of the libtrak code it uses, which it must not export. (Sanitizer
# runtimes may add symbols of their own; only trak names are checked.)
set -euo pipefail
BIN=${TRAK_BINARY_DIR:?}
SRC=${TRAK_SOURCE_DIR:?}

# check LIB HEADER...: LIB exports exactly the TRAK_API functions the headers declare.
check() {
  local lib="$BIN/$1"
  shift
  local exported declared missing extra
  exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort)
  declared=$(grep -ho 'TRAK_API [^;]*' "$@" | grep -o 'trak_[a-z0-9_]*(' | tr -d '(' | sort -u)
  [ -n "$declared" ] || { echo "FAIL: $lib: found no TRAK_API declarations" >&2; exit 1; }
  missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
  [ -z "$missing" ] || { echo "FAIL: $lib: declared but not exported: $missing" >&2; exit 1; }
  extra=$(comm -23 <(echo "$exported") <(echo "$declared") | grep "^trak" || true)
  [ -z "$extra" ] || { echo "FAIL: $lib: exported but not declared: $extra" >&2; exit 1; }
  echo "shared_library: ${lib##*/}: $(echo "$declared" | wc -l) public functions, nothing else"
}

sdk_headers=()
for h in "$SRC"/include/trak/*.h; do
  [[ $h == */processor.h ]] || sdk_headers+=("$h")
done
check libtrak.so "${sdk_headers[@]}"
check libtrak_processor.so "$SRC/include/trak/processor.h"
