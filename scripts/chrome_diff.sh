#!/bin/bash
# Development aid, not run by CI: runs the fixed query set scripts/chrome_queries.sql (or QUERIES=)
# on one trace through trak and through Perfetto's trace_processor_shell (the oracle) and diffs
# their CSV query by query. Meant for Chromium's own protobuf startup traces, recorded with
#   chromium --headless=new --no-sandbox --trace-startup='*,disabled-by-default-*' \
#     --trace-startup-format=proto --trace-startup-file=T.pb --trace-startup-duration=3 about:blank
#   scripts/chrome_diff.sh TRACE [QUERY_NUMBER ...]
# Prints "SAME n" or the diff (trak's lines '-', the oracle's '+'), then "k of n queries match".
# Environment: ORACLE (default /work/oracle/tp/bin/trace_processor_shell), TRAK (build/trak),
# LINES (diff lines shown per query, default 30).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ORACLE=${ORACLE:-/work/oracle/tp/bin/trace_processor_shell}
TRAK=${TRAK:-$ROOT/build/trak}
QUERIES=${QUERIES:-$ROOT/scripts/chrome_queries.sql}
[ $# -ge 1 ] || { echo "usage: $0 TRACE [QUERY_NUMBER ...]" >&2; exit 2; }
trace=$1; shift
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
awk -v dir="$WORK" '/^--/ {next} {buf = buf $0 "\n"} /;[ \t]*$/ {n++; f = dir "/q" n ".sql"; printf "%s", buf > f; close(f); buf = ""}' "$QUERIES"
total=0 same=0
for q in $(ls "$WORK"/q*.sql | sort -V); do
  n=$(basename "$q" .sql); n=${n#q}
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$n"; then continue; fi
  total=$((total + 1))
  "$TRAK" query "$trace" -q "$q" --format tp >"$WORK/trak.csv" 2>&1
  "$ORACLE" -q "$q" "$trace" >"$WORK/oracle.csv" 2>/dev/null || echo "(oracle failed)" >>"$WORK/oracle.csv"
  if diff -q "$WORK/trak.csv" "$WORK/oracle.csv" >/dev/null; then
    same=$((same + 1)); echo "SAME $n"
  else
    echo "DIFF $n: $(tr '\n' ' ' <"$q" | cut -c1-160)"
    diff "$WORK/trak.csv" "$WORK/oracle.csv" | sed 's/^/  /' | head -"${LINES:-30}"
  fi
done
echo "$same of $total queries match"
[ "$same" = "$total" ]
