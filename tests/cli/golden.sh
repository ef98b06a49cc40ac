#!/bin/bash
# Golden tests of the trace processor: for every NAME.sql under tests/data/golden/ (in any
# subfolder: goldens are grouped by area, tests/README.md), the trace (NAME.pbtxt beside it, or the
# file named by a "-- trace: PATH" line, relative to tests/data/) is encoded to binary with
# protoc, imported by `trak query -q NAME.sql`, and the output must equal NAME.csv beside it byte
# for byte. NAMEs are unique across subfolders (malformed.list names them without a folder).
# The same trace is also fed gzip-compressed, and as text when trak's text parser is available.
# A "-- trace: golden/json/NAME.json" line names a JSON trace-event trace, "-- trace: DIR/NAME.pb" a
# binary trace, "-- trace: systrace/NAME.systrace" (or .html) a systrace text trace, each imported
# as it is. A "-- options: ..." line gives trak query more options.
set -u
TRAK=$1
DATA=$TRAK_SOURCE_DIR/tests/data
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail=0
text_ok=0
if "$TRAK" query "$DATA/seed/01_thread_slices.pbtxt" 'select 1' >/dev/null 2>&1; then text_ok=1; fi

dups=$(find "$DATA/golden" -name '*.sql' -printf '%f\n' | sort | uniq -d)
[ -z "$dups" ] || { echo "FAIL: golden names used twice: $dups"; fail=1; }
ran=0
while IFS= read -r sql <&3; do
  ran=$((ran + 1))
  name=$(basename "$sql" .sql)
  dir=$(dirname "$sql")
  trace=$dir/$name.pbtxt
  ref=$(sed -n 's/^-- trace: //p' "$sql" | head -1)
  opts=$(sed -n 's/^-- options: //p' "$sql" | head -1)
  [ -n "$ref" ] && trace=$DATA/$ref
  case $trace in *.json | *.pb | *.systrace | *.html) as_is=1 ;; *) as_is=0 ;; esac
  if [ $as_is = 1 ]; then
    # A JSON trace, a systrace text one, or a binary one (encoded elsewhere, e.g. with
    # Chromium's extensions), is read as it is, and gzip-compressed.
    gzip -c "$trace" >"$WORK/$name.gz"
    inputs="$trace $WORK/$name.gz"
  else
    if ! "$PROTOC" 2>/dev/null --encode=perfetto.protos.Trace -I "$TRAK_SOURCE_DIR/protos" trace.proto \
        <"$trace" >"$WORK/$name.pb"; then
      echo "FAIL $name: protoc cannot encode $trace"; fail=1; continue
  fi
  gzip -c "$WORK/$name.pb" >"$WORK/$name.pb.gz"
  inputs="$WORK/$name.pb $WORK/$name.pb.gz"
  [ $text_ok = 1 ] && inputs="$inputs $trace"
  fi
  for input in $inputs; do
    # shellcheck disable=SC2086 # the options are words
    "$TRAK" query "$input" -q "$sql" $opts >"$WORK/out.csv" 2>"$WORK/err.txt"
    rc=$?
    # Malformed input exits 1 (docs/limits.md), after printing the rows it could import.
    want=0
    grep -qx "$name" "$DATA/golden/malformed.list" && want=1
    if [ $rc != $want ]; then
      echo "FAIL $name ($input): trak query exits $rc, not $want"; cat "$WORK/err.txt"; fail=1; continue
    fi
    if ! diff -u "$dir/$name.csv" "$WORK/out.csv"; then
      echo "FAIL $name ($(basename "$input"))"; fail=1
    fi
  done
done 3< <(find "$DATA/golden" -name '*.sql' | sort)
[ $ran -gt 0 ] || { echo "FAIL: no golden found under $DATA/golden"; fail=1; }
[ $fail = 0 ] && echo "all $ran golden tests pass"
exit $fail
