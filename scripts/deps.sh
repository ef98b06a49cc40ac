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
  libmicrohttpd-dev                  # `trak ui`: the viewer's HTTP server
  chromium                           # tests/ui: the viewer's browser tests (headless)
  clang-format                       # `make format`
  python3 python3-pytest             # the Python package's tests (python/), run by /usr/bin/python3
  python3-numpy python3-pandas       # its dataframes
  python3-setuptools python3-pip     # `pip install ./python`, tested offline
  python3-dask python3-distributed   # trak.dask: fleet queries on Dask (tests: a LocalCluster)
)
# tests/ui drives chromium with playwright-core from npm. Debian's npm needs Debian's nodejs; a
# machine with another Node.js (which ships npm) keeps it.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

# playwright-core at the version tests/ui/package-lock.json pins (no browser download: the tests
# use Debian's chromium). npm leaves its own copy of the lock file in node_modules; a newer
# committed lock file means the install is stale.
npm_install() {
  local ui
  ui="$(dirname "$0")/../tests/ui"
  [[ -f "$ui/node_modules/.package-lock.json" && \
     ! "$ui/package-lock.json" -nt "$ui/node_modules/.package-lock.json" ]] && return 0
  echo "trak: npm ci in tests/ui" >&2
  (cd "$ui" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >&2)
}

if [[ ${#missing[@]} -eq 0 ]]; then
  npm_install
  exit 0
fi

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
npm_install
