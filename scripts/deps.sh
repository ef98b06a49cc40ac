#!/usr/bin/env bash
# Installs the Debian packages trak's build, tests and fuzzers need, when any is missing.
# Run as root it installs them with apt-get; otherwise it prints the apt-get line and fails,
# so that a fresh machine never reaches a confusing compiler error instead.
set -euo pipefail

packages=(
  cmake make gcc pkg-config          # the build
  protobuf-compiler libprotobuf-dev  # protoc and descriptor.proto, at build time only
  libsqlite3-dev zlib1g-dev          # libtrak_processor
  sqlite3                            # tests: `trak export` output opens in the sqlite3 tool
  libedit-dev                        # `trak shell` line editing
  libcmocka-dev                      # unit tests
  clang libclang-rt-dev              # libFuzzer targets and the sanitizer builds
  clang-format                       # `make format`
  python3 python3-pytest             # the Python package's tests (python/), run by /usr/bin/python3
  python3-numpy python3-pandas       # its dataframes
  python3-setuptools python3-pip     # `pip install ./python`, tested offline
)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

line="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "trak: missing build dependencies; run as root:" >&2
  echo "  $line" >&2
  exit 1
fi
echo "trak: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
