#!/usr/bin/env bash
# Runs the benchmark programs (bench/*_bench.c, built into build/ by `make build`) and prints
# their figures; docs/performance.md records them and explains each. Nothing here passes or
# fails on a figure.
#   scripts/bench.sh                  every benchmark at the sizes docs/performance.md uses
#   BENCH_QUICK=1 scripts/bench.sh    small sizes: a check that they run, not figures to keep
#   scripts/bench.sh sdk_bench ...    only the named ones
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}

# Arguments of the quick run, by benchmark (sizes only; the full run uses the defaults).
declare -A quick=(
  [import_bench]="200000 /tmp/trak_import_bench_quick.pb"
  [json_bench]="10 /tmp/trak_json_bench_quick.json"
  [pb_bench]="100000"
  [probes_bench]="1 4"
  [sqlite_insert_bench]="100000"
  [writer_bench]="200000"
)

if [[ $# -gt 0 ]]; then
  names=("$@")
else
  names=()
  for src in bench/*_bench.c; do
    names+=("$(basename "$src" .c)")
  done
fi

for name in "${names[@]}"; do
  exe=$build/$name
  [[ -x $exe ]] || { echo "bench.sh: $exe is not built (make build)" >&2; exit 1; }
  args=()
  if [[ -n ${BENCH_QUICK:-} && -n ${quick[$name]:-} ]]; then
    read -r -a args <<<"${quick[$name]}"
  fi
  echo "== $name ${args[*]}"
  "$exe" "${args[@]}"
  echo
done
rm -f /tmp/trak_import_bench_quick.pb
