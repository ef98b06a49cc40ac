#!/usr/bin/env bash
# Builds and runs programs that depend on trak the ways docs/sdk.md shows (consumer/: record
# writes a trace with the SDK, query checks it with the processor).
#   run.sh install      BUILD WORK   installs BUILD into WORK/prefix, checks the tree
#   run.sh pkgconfig    BUILD WORK   consumers built with pkg-config against WORK/prefix
#   run.sh find_package BUILD WORK   consumers built with find_package(trak) against it
#   run.sh subdirectory BUILD WORK   consumers embedding the source tree (add_subdirectory)
#   run.sh deb          BUILD WORK   cpack's .deb, unpacked with dpkg -x, consumers against it
set -euo pipefail
mode=$1
build=$2
work=$3
src=${TRAK_SOURCE_DIR:?}
consumer=$src/tests/install/consumer
prefix=$work/prefix
# The library directory the build installs to (lib/<multiarch triplet> on Debian).
L=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
L=${L:-lib}
out=$work/$mode
rm -rf "$out"
mkdir -p "$out"

fail() {
  echo "install test ($mode): $*" >&2
  exit 1
}

# Runs record and query from directory $1; their shared libraries must come from $2.
run_consumers() {
  local dir=$1 libdir=$2
  "$dir/record" "$dir/trace.pb" >/dev/null || fail "$dir/record failed"
  local got
  got=$("$dir/query" "$dir/trace.pb" 10) || fail "$dir/query: '$got', expected 10 Step slices"
  # (ldd's output is kept whole: grep -q closing a pipe early would fail it under pipefail)
  local libs
  libs=$(ldd "$dir/record")
  [[ $libs == *"libtrak.so.0 => $libdir/"* ]] || fail "$dir/record: libtrak not from $libdir"
  libs=$(ldd "$dir/query")
  [[ $libs == *"libtrak_processor.so.0 => $libdir/"* ]] ||
    fail "$dir/query: libtrak_processor not from $libdir"
  if [[ -e $dir/record_static ]]; then
    "$dir/record_static" "$dir/static.pb" >/dev/null || fail "$dir/record_static failed"
    libs=$(ldd "$dir/record_static")
    [[ $libs != *libtrak* ]] || fail "record_static links libtrak.so"
    "$dir/query_static" "$dir/static.pb" 10 >/dev/null || fail "$dir/query_static failed"
  fi
}

# Builds the consumers with pkg-config from the .pc files in $1 (nothing else on its path).
pkgconfig_consumers() {
  export PKG_CONFIG_LIBDIR=$1
  local libdir flags=(-std=gnu11 -Wall -Wextra -Werror -O2)
  libdir=$(cd "$(pkg-config --variable=libdir trak)" && pwd)
  # shellcheck disable=SC2046 # pkg-config output is a list of flags
  cc "${flags[@]}" "$consumer/record.c" $(pkg-config --cflags --libs trak) \
    -Wl,-rpath,"$libdir" -o "$out/record" || fail "record does not build with pkg-config"
  # shellcheck disable=SC2046
  cc "${flags[@]}" "$consumer/query.c" $(pkg-config --cflags --libs trak-processor) \
    -Wl,-rpath,"$libdir" -o "$out/query" || fail "query does not build with pkg-config"
  run_consumers "$out" "$libdir"
}

case $mode in
install)
  rm -rf "$prefix"
  cmake --install "$build" --prefix "$prefix" >/dev/null
  for f in bin/trak share/man/man1/trak.1 include/trak/trak.h include/trak/protos.h \
    include/trak/processor.h $L/libtrak.a $L/libtrak.so.0 $L/libtrak_processor.a \
    $L/libtrak_processor.so.0 $L/pkgconfig/trak.pc $L/pkgconfig/trak-processor.pc \
    $L/cmake/trak/trakConfig.cmake $L/cmake/trak/trakConfigVersion.cmake; do
    [[ -e $prefix/$f ]] || fail "$f is not installed"
  done
  [[ $("$prefix/bin/trak" --version) == "trak "[0-9]* ]] || fail "installed trak --version"
  grep -q '^\.SS query$' "$prefix/share/man/man1/trak.1" || fail "trak.1 lacks the query command"
  # libtrak needs libc, libm and pthreads only.
  needed=$(readelf -d "$prefix/$L/libtrak.so.0" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | sort)
  extra=$(grep -v -e '^libc\.so' -e '^libm\.so' -e '^libpthread\.so' <<<"$needed" || true)
  [[ -z $extra ]] || fail "libtrak.so needs $extra"
  # Every public header compiles on its own with only the installed include directory: the C
  # ones as C, the Perfetto-compatible C++ ones (perfetto.h, perfetto/*.h) as C++17.
  for h in "$prefix"/include/trak/*.h; do
    [[ ${h##*/} == perfetto.h ]] && continue
    echo "#include <trak/${h##*/}>" | cc -std=gnu11 -Wall -Werror -fsyntax-only -x c \
      -I "$prefix/include" - || fail "trak/${h##*/} is not self-contained"
  done
  for h in "$prefix"/include/trak/perfetto.h "$prefix"/include/trak/perfetto/*.h; do
    h=${h#"$prefix"/include/}
    echo "#include <$h>" | c++ -std=c++17 -Wall -Wpedantic -Werror -fsyntax-only -x c++ \
      -I "$prefix/include" - || fail "$h is not self-contained"
  done
  ;;
pkgconfig)
  pkgconfig_consumers "$prefix/$L/pkgconfig"
  ;;
find_package)
  cmake -S "$consumer" -B "$out" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    >/dev/null || fail "find_package(trak) consumer does not configure"
  cmake --build "$out" -j2 >/dev/null || fail "find_package(trak) consumer does not build"
  run_consumers "$out" "$prefix/$L"
  ;;
subdirectory)
  cmake -S "$consumer" -B "$out" -DCMAKE_BUILD_TYPE=Release -DTRAK_SOURCE_DIR="$src" \
    >/dev/null || fail "add_subdirectory consumer does not configure"
  cmake --build "$out" -j2 >/dev/null || fail "add_subdirectory consumer does not build"
  # As a subproject trak builds its libraries only: no command, no tests.
  [[ ! -e $out/trak/trak && ! -e $out/trak/test_pb_codec ]] || fail "subproject built more"
  run_consumers "$out" "$out/trak"
  ;;
deb)
  version=$("$build/trak" --version | sed 's/^trak //')
  cpack --config "$build/CPackConfig.cmake" -B "$out" >/dev/null || fail "cpack failed"
  deb=$out/trak_${version}_amd64.deb
  [[ -f $deb ]] || fail "no $deb"
  [[ $(dpkg-deb -f "$deb" Package) == trak ]] || fail "package name"
  [[ $(dpkg-deb -f "$deb" Depends) == *libsqlite3-0* ]] || fail "Depends lacks libsqlite3-0"
  dpkg -x "$deb" "$out/root"
  "$out/root/usr/bin/trak" --version >/dev/null || fail "the packaged trak does not run"
  [[ -e $out/root/usr/$L/cmake/trak/trakConfig.cmake ]] || fail "no CMake package in the .deb"
  [[ -e $out/root/usr/$L/libtrak.so.0 ]] || fail "the .deb has no /usr/$L/libtrak.so.0"
  # Debian's multiarch layout (cmake/install.cmake): /usr/lib/<triplet>, not /usr/lib.
  if [[ -e /etc/debian_version ]]; then
    [[ $L == lib/*-linux-* ]] || fail "the .deb's libraries go to /usr/$L, not multiarch"
  fi
  pkgconfig_consumers "$out/root/usr/$L/pkgconfig"
  ;;
*)
  fail "unknown mode"
  ;;
esac
echo "install test ($mode): ok"
