#!/bin/bash
# Development aid, not run by CI: runs (trace, query) pairs through trak and through Perfetto's
# trace_processor_shell (the oracle) and diffs their CSV, statement by statement.
#   scripts/oracle_diff.sh [NAME.sql ...]     (default: every .sql under tests/data/golden/)
# A NAME.sql's trace is NAME.pbtxt beside it, or the file a "-- trace: PATH" line names
# (relative to tests/data/), as in tests/cli/golden.sh. Text traces are encoded with protoc.
# Environment: SEQ=1 (see below), ORACLE (default /work/oracle/tp/bin/trace_processor_shell), TRAK (build/trak).
# Prints "SAME name" or the diff (trak's lines '-', the oracle's '+'); exits 1 on a difference.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ORACLE=${ORACLE:-/work/oracle/tp/bin/trace_processor_shell}
TRAK=${TRAK:-$ROOT/build/trak}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
shopt -s globstar # goldens sit in subfolders by area
[ $# -gt 0 ] || set -- "$ROOT"/tests/data/golden/**/*.sql
status=0
for sql in "$@"; do
  name=$(basename "$sql" .sql)
  trace=${sql%.sql}.pbtxt
  ref=$(sed -n 's/^-- trace: //p' "$sql" | head -1)
  [ -n "$ref" ] && trace=$ROOT/tests/data/$ref
  input=$trace
  case "$trace" in
  *.pbtxt)
    # Perfetto drops track events of packets without trusted_packet_sequence_id
    # (track_event_missing_sequence_id): with SEQ=1, such one-line packets get sequence 77.
    if [ "${SEQ:-0}" = 1 ]; then
      sed '/^packet {/{/trusted_packet_sequence_id/!s/^packet {/packet { trusted_packet_sequence_id: 77/}' "$trace" >"$WORK/t.pbtxt"
      trace=$WORK/t.pbtxt
    fi
    protoc --encode=perfetto.protos.Trace -I "$ROOT/protos" trace.proto <"$trace" >"$WORK/t.pb" ||
      { echo "SKIP $name: protoc cannot encode"; continue; }
    input=$WORK/t.pb ;;
  esac
  # One statement per file: statements end with ';' at the end of a line.
  awk -v dir="$WORK" '/^--/ {next} {buf = buf $0 "\n"} /;[ \t]*$/ {n++; f = dir "/q" n ".sql"; printf "%s", buf > f; close(f); buf = ""}' "$sql"
  same=1
  for q in "$WORK"/q*.sql; do
    "$TRAK" query "$input" -q "$q" >"$WORK/trak.csv" 2>&1
    # The oracle's own timings (*_duration_ns stats) differ on every run: left out.
    { "$ORACLE" -q "$q" "$input" 2>/dev/null || echo "(oracle failed)"; } |
      grep -v '^"[a-z_]*_duration_ns",' >"$WORK/oracle.csv"
    if ! diff -q "$WORK/trak.csv" "$WORK/oracle.csv" >/dev/null; then
      [ $same = 1 ] && echo "DIFF $name"
      same=0
      echo "  query: $(tr '\n' ' ' <"$q" | cut -c1-200)"
      diff "$WORK/trak.csv" "$WORK/oracle.csv" | sed 's/^/  /' | head -40
    fi
  done
  rm -f "$WORK"/q*.sql
  if [ $same = 1 ]; then echo "SAME $name"; else status=1; fi
done
exit $status
