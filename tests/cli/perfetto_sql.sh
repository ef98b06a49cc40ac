#!/bin/bash
# PerfettoSQL through the trak command: Perfetto's getting-started queries give what Perfetto's
# trace_processor_shell gave on the same trace (tests/data/psql/getting_started.expected), the
# columns of `SELECT * FROM slice` are Perfetto's, an error names the line and column, a
# statement whose only column is suppress_query_output prints nothing (as in Perfetto's shell),
# and `trak shell`'s .help lists the modules. And the SQL set-up (trak__sql_ready: virtual
# tables, views, functions, the prelude) builds exactly what it did before its schema batch
# (src/processor/sql/schema_batch.c): the schema entries with their text and order, every column
# of every table and view, the functions, modules and schema version, and a few answers
# (tests/data/psql/sql_setup.expected; a change to the set-up updates it on purpose); an
# unknown name fails as it did.
set -u
TRAK=$1
DATA=$TRAK_SOURCE_DIR/tests/data/psql
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail=0
expect() { echo "FAIL: $1"; fail=1; }

"$TRAK" query "$DATA/modules.json" -q "$DATA/getting_started.sql" >"$WORK/out.txt" ||
  expect "the getting-started queries run"
diff "$WORK/out.txt" "$DATA/getting_started.expected" || expect "getting-started answers"

"$TRAK" query "$DATA/modules.json" "SELECT * FROM slice LIMIT 1" | head -1 >"$WORK/cols.txt"
echo '"id","ts","dur","track_id","category","name","depth","parent_id","arg_set_id","thread_ts","thread_dur","thread_instruction_count","thread_instruction_delta","cat","slice_id"' |
  diff - "$WORK/cols.txt" || expect "slice has Perfetto's columns"

printf 'SELECT 1;\nINCLUDE PERFETTO MODULE no.such;\n' >"$WORK/bad.sql"
"$TRAK" query "$DATA/modules.json" -q "$WORK/bad.sql" >/dev/null 2>"$WORK/err.txt" &&
  expect "an unknown module fails the query"
grep -qF "trak query: unknown module 'no.such' (INCLUDE PERFETTO MODULE no.such at line 2, column 25)" \
  "$WORK/err.txt" || expect "the error names the module, line and column: $(cat "$WORK/err.txt")"

printf 'SELECT 1 AS suppress_query_output;\nSELECT 2 AS a;\n' >"$WORK/quiet.sql"
"$TRAK" query "$DATA/modules.json" -q "$WORK/quiet.sql" --format tp >"$WORK/quiet.txt" ||
  expect "suppress_query_output runs"
printf '"a"\n2\n' | diff - "$WORK/quiet.txt" || expect "suppress_query_output is not printed"

echo .help | "$TRAK" shell "$DATA/modules.json" >"$WORK/help.txt" 2>&1
grep -q "slices.with_context" "$WORK/help.txt" || expect ".help lists the modules"

"$TRAK" query "$DATA/modules.json" -q "$DATA/sql_setup.sql" >"$WORK/setup.txt" ||
  expect "the set-up queries run"
diff "$WORK/setup.txt" "$DATA/sql_setup.expected" || expect "the set-up builds what it did"
"$TRAK" query "$DATA/modules.json" "SELECT * FROM no_such_view" 2>&1 >/dev/null |
  grep -qF "no such table: no_such_view (SELECT at line 1, column 1)" ||
  expect "an unknown table fails as it did"

exit $fail
