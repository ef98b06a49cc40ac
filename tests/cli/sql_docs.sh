#!/bin/bash
# Every ```sql block of docs/sql.md runs with `trak query` on tests/data/psql/modules.json and
# prints exactly the ```text block that follows it.
set -u
TRAK=$1
doc="$TRAK_SOURCE_DIR/docs/sql.md"
trace="$TRAK_SOURCE_DIR/tests/data/psql/modules.json"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
awk -v dir="$WORK" '
  /^```sql$/ { n++; file = sprintf("%s/ex%02d.sql", dir, n); mode = 1; next }
  /^```text$/ { file = sprintf("%s/ex%02d.want", dir, n); mode = 2; next }
  /^```$/ { mode = 0; next }
  mode { print > file }
' "$doc"
fail=0
count=0
for sql in "$WORK"/ex*.sql; do
  want="${sql%.sql}.want"
  [ -f "$want" ] || { echo "FAIL: $(basename "$sql") has no output block"; fail=1; continue; }
  "$TRAK" query "$trace" -q "$sql" >"$WORK/got" 2>&1 || { echo "FAIL: $(basename "$sql") failed"; }
  diff "$want" "$WORK/got" >/dev/null ||
    { echo "FAIL: docs/sql.md example $(basename "$sql"):"; cat "$sql"; diff "$want" "$WORK/got"; fail=1; }
  count=$((count + 1))
done
[ "$count" -ge 20 ] || { echo "FAIL: expected at least 20 examples, found $count"; fail=1; }
[ $fail = 0 ] && echo "ok: $count examples"
exit $fail
