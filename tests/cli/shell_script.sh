#!/bin/bash
# `trak shell` with statements piped in: the first error stops it with exit status 1 naming the
# line (unless -bail off), .read / .output / .once / .headers / .mode, and the table format:
# padded by display width (UTF-8, wide characters), control characters escaped, and rows
# streamed past the first 1000 with the widths those set.
set -u
TRAK=$1
source "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"
SEED=$TRAK_SOURCE_DIR/tests/data/seed/01_thread_slices.pbtxt
sh_run() { "$TRAK" shell "$@" "$SEED" >"$WORK/out" 2>"$WORK/err"; }

# Bail: the statement after the error does not run; exit 1; the error names stdin's line.
printf 'select 1 as a;\nselect nope from slice;\nselect 2 as b;\n' | sh_run
[ $? = 1 ] || { echo "FAIL: piped error does not exit 1"; fail=1; }
grep -q '^b' "$WORK/out" && { echo "FAIL: a statement ran after the error"; fail=1; }
expect_lines "$WORK/err" "trak shell: stdin:2: no such column: nope"
printf 'select 1 as a;\nselect nope from slice;\nselect 2 as b;\n' | sh_run -bail off
[ $? = 1 ] || { echo "FAIL: -bail off hides the error in the exit status"; fail=1; }
expect_lines "$WORK/out" "b"
printf '.nonsense\nselect 3 as c;\n' | sh_run
[ $? = 1 ] || { echo "FAIL: an unknown dot command does not stop the script"; fail=1; }
printf 'select 4 as d;\n' | sh_run || { echo "FAIL: a clean script exits $?"; fail=1; }

# .read runs a file (its errors name the file and line), .output / .once write files.
printf 'select 5 as five;\n.mode csv\nselect 6 as six;\n' >"$WORK/part.sql"
printf 'select 1;\n\nselect bad;\n' >"$WORK/bad.sql"
printf '.read %s\n.output %s\nselect 7 as seven;\n.output\n.once %s\nselect 8 as eight;\nselect 9 as nine;\n' \
  "$WORK/part.sql" "$WORK/o.txt" "$WORK/once.txt" | sh_run || { echo "FAIL: .read/.output script"; fail=1; }
expect_lines "$WORK/out" "five" "six" "nine"
grep -q seven "$WORK/out" && { echo "FAIL: .output did not take the result"; fail=1; }
[ "$(cat "$WORK/o.txt")" = "$(printf 'seven\n7')" ] || { echo "FAIL: .output file: $(cat "$WORK/o.txt")"; fail=1; }
[ "$(cat "$WORK/once.txt")" = "$(printf 'eight\n8')" ] || { echo "FAIL: .once file"; fail=1; }
printf '.read %s\nselect 10;\n' "$WORK/bad.sql" | sh_run
[ $? = 1 ] || { echo "FAIL: an error in .read does not stop"; fail=1; }
expect_lines "$WORK/err" "bad.sql:3: no such column: bad"

# .headers off; .mode json.
printf '.headers off\n.mode csv\nselect 11 as x;\n.mode json\nselect 12 as y;\n' | sh_run
[ "$(head -1 "$WORK/out")" = 11 ] || { echo "FAIL: .headers off"; fail=1; }
expect_lines "$WORK/out" '{"y": 12}'

# Table: display width and escapes.
printf "select '中文' as w, 'x' as z union all select 'abcd', 'y';\nselect 'a\tb' || char(10) || 'c' as t;\n" | sh_run
expect_lines "$WORK/out" "中文 x" "abcd y" 'a\tb\nc'

# Streaming: past the first 1000 rows the widths stay those of the first 1000.
printf "with recursive c(i) as (select 1 union all select i + 1 from c where i < 1500)
select case when i > 1200 then 'a-much-longer-value' else 'v' end as v, i from c;\n" | sh_run
[ "$(grep -c . "$WORK/out")" = 1502 ] || { echo "FAIL: streamed table lines: $(wc -l <"$WORK/out")"; fail=1; }
expect_lines "$WORK/out" "v i" "v 1000" "a-much-longer-value 1500"

[ $fail = 0 ] && echo "shell script tests pass"
exit $fail
