#!/usr/bin/env bash
# Security and resource bounds (issue #32): SQL restricted by --restrict-sql cannot write a file
# or change trak's tables; a gzip of several members is read whole and trailing garbage is
# reported; `record -o` leaves an existing file alone when no session runs; the daemon's socket
# cannot be taken over by another user (run as root, the test makes a second user and removes
# it after; otherwise that part is skipped).
set -u
TRAK=$1
. "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"
skipped=""

# ---- 2. --restrict-sql: ATTACH / VACUUM INTO / DROP refused, no file created ------------------
echo '{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":5,"pid":1,"tid":1}]}' >"$WORK/t.json"
mkdir "$WORK/out"
for sql in "ATTACH DATABASE '$WORK/out/a.db' AS a" "VACUUM INTO '$WORK/out/v.db'" \
  "DROP TABLE slice" "CREATE OR REPLACE PERFETTO TABLE slice AS SELECT 1"; do
  if "$TRAK" query --restrict-sql "$WORK/t.json" "$sql" >"$WORK/q.out" 2>&1; then
    echo "FAIL: --restrict-sql ran: $sql"; fail=1
  fi
  grep -q "\(not authorized\|authorization denied\).*: restricted SQL may read every table" "$WORK/q.out" ||
    { echo "FAIL: $sql: no refusal:"; cat "$WORK/q.out"; fail=1; }
done
[ -z "$(ls -A "$WORK/out")" ] || { echo "FAIL: restricted SQL created files:"; ls "$WORK/out"; fail=1; }
"$TRAK" query --restrict-sql "$WORK/t.json" --format csv \
  "CREATE PERFETTO TABLE mine AS SELECT * FROM slice; SELECT count(*) AS n FROM mine" \
  >"$WORK/q.out" 2>&1
expect_lines "$WORK/q.out" '1'
# Without the flag the command line's SQL is the user's own: full SQLite.
"$TRAK" query "$WORK/t.json" "ATTACH DATABASE '$WORK/out/a.db' AS a; CREATE TABLE a.t(x)" \
  >/dev/null 2>&1 && [ -f "$WORK/out/a.db" ] || { echo "FAIL: unrestricted ATTACH failed"; fail=1; }

# ---- 5. silent losses: every gzip member read, trailing garbage reported; record -o --------------
printf '{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":5,"pid":1,"tid":1},' >"$WORK/a.json"
printf '{"name":"b","ph":"X","ts":10,"dur":5,"pid":1,"tid":1}]}' >"$WORK/b.json"
gzip "$WORK/a.json" "$WORK/b.json"
cat "$WORK/a.json.gz" "$WORK/b.json.gz" >"$WORK/ab.json.gz" # what `cat a.gz b.gz` makes
"$TRAK" query --format csv "$WORK/ab.json.gz" "SELECT count(*) AS n FROM slice" >"$WORK/gz.out" 2>&1
grep -qx 2 "$WORK/gz.out" || { echo "FAIL: a two-member gzip:"; cat "$WORK/gz.out"; fail=1; }
{ cat "$WORK/ab.json.gz"; echo garbage; } >"$WORK/abg.json.gz"
"$TRAK" check "$WORK/abg.json.gz" >"$WORK/gzg.out" 2>&1 && { echo "FAIL: check passes trailing garbage"; fail=1; }
expect_lines "$WORK/gzg.out" "trailing data after the last gzip member, at compressed byte $(stat -c %s "$WORK/ab.json.gz"); ignored it" \
  "2 events"
# record -o onto an existing file with no daemon: the file is untouched (it is emptied only once
# a daemon answers).
echo keep >"$WORK/old.pb"
TRAK_SOCKET=$WORK/none.sock "$TRAK" record -o "$WORK/old.pb" --time 1s >"$WORK/rec0.out" 2>&1 &&
  { echo "FAIL: record without a daemon exits 0"; fail=1; }
[ "$(cat "$WORK/old.pb")" = keep ] || { echo "FAIL: record -o emptied an existing file"; fail=1; }
ls "$WORK"/old.pb.tmp.* >/dev/null 2>&1 && { echo "FAIL: record left its temporary file"; fail=1; }
# With a daemon: OUT stays as it was while the session runs (the trace goes to a temporary
# file beside it) and is replaced when it ends.
"$TRAK" daemon --socket "$WORK/rec.sock" 2>"$WORK/drec.log" & drec=$!
for _ in $(seq 50); do [ -S "$WORK/rec.sock" ] && break; sleep 0.1; done
TRAK_SOCKET=$WORK/rec.sock "$TRAK" record -o "$WORK/old.pb" --time 3s >"$WORK/rec1.out" 2>&1 & rec=$!
sleep 1
[ "$(cat "$WORK/old.pb")" = keep ] || { echo "FAIL: record -o replaced OUT before the session ended"; fail=1; }
wait $rec || { echo "FAIL: record with a daemon:"; cat "$WORK/rec1.out"; fail=1; }
[ "$(cat "$WORK/old.pb")" != keep ] && "$TRAK" check "$WORK/old.pb" >/dev/null 2>&1 ||
  { echo "FAIL: the recorded trace did not replace OUT"; fail=1; }
ls "$WORK"/old.pb.tmp.* >/dev/null 2>&1 && { echo "FAIL: record left its temporary file"; fail=1; }
kill $drec; wait $drec 2>/dev/null
# ---- 8. a directory given as the trace says so
"$TRAK" query "$WORK" "SELECT 1" >"$WORK/dir.out" 2>&1
expect_lines "$WORK/dir.out" "$WORK: is a directory, not a trace file"

# ---- 3. the daemon's socket and another user --------------------------------------------------
# The default path is in a directory trak makes owner-only.
export TMPDIR=$WORK/tmp
mkdir -m 1777 "$TMPDIR"
unset TRAK_SOCKET XDG_RUNTIME_DIR
me=$(id -u)
"$TRAK" daemon 2>"$WORK/d1.log" & d1=$!
for _ in $(seq 50); do [ -S "$TMPDIR/trak-$me/trak.sock" ] && break; sleep 0.1; done
[ "$(stat -c %a "$TMPDIR/trak-$me")" = 700 ] || { echo "FAIL: the socket's directory is not 0700"; fail=1; }
"$TRAK" status >"$WORK/st.out" 2>&1 || { echo "FAIL: status on the default path:"; cat "$WORK/st.out"; fail=1; }
kill $d1; wait $d1 2>/dev/null

if [ "$me" != 0 ]; then
  skipped="the second-user cases (they need root to create a user)"
elif ! command -v useradd >/dev/null; then
  skipped="the second-user cases (no useradd)"
else
  other=trak_sec_$$
  useradd -M -s /bin/false "$other" || { echo "FAIL: useradd $other"; exit 1; }
  ouid=$(id -u "$other")
  # Every process of the other user ends before the user is removed (userdel refuses otherwise).
  d3=
  trap 'kill -9 $d3 2>/dev/null; wait 2>/dev/null; userdel "$other"; rm -rf "$WORK"' EXIT
  as_other=(setpriv --reuid="$ouid" --regid="$ouid" --clear-groups)
  chmod 755 "$WORK"
  # (a) The other user makes root's private directory first: root's daemon refuses it, saying whose.
  rm -rf "$TMPDIR/trak-$me"
  "${as_other[@]}" mkdir -m 700 "$TMPDIR/trak-$me"
  "$TRAK" daemon 2>"$WORK/d2.log" && { echo "FAIL: the daemon used another user's directory"; fail=1; }
  expect_lines "$WORK/d2.log" "belongs to uid $ouid, not to you (uid 0); refusing to use it"
  # (b) The other user's daemon on a shared path: root's record and status refuse to talk to it.
  mkdir -m 1777 "$WORK/shared"
  "${as_other[@]}" "$TRAK" daemon --shared --socket "$WORK/shared/s.sock" 2>"$WORK/d3.log" & d3=$!
  for _ in $(seq 50); do [ -S "$WORK/shared/s.sock" ] && break; sleep 0.1; done
  "$TRAK" status --socket "$WORK/shared/s.sock" >"$WORK/st2.out" 2>&1 &&
    { echo "FAIL: status talked to another user's daemon"; fail=1; }
  expect_lines "$WORK/st2.out" "the daemon there runs as another user"
  echo 'buffers { size_kb: 64 } duration_ms: 100' >"$WORK/cfg.pbtxt"
  timeout 20 "$TRAK" record -c "$WORK/cfg.pbtxt" -o "$WORK/rec.pb" --socket "$WORK/shared/s.sock" \
    >"$WORK/rec.out" 2>&1 && { echo "FAIL: record gave its session to another user's daemon"; fail=1; }
  expect_lines "$WORK/rec.out" "the daemon there runs as another user"
  # (c) Its socket left behind: root's daemon does not replace it.
  kill -9 $d3; wait $d3 2>/dev/null
  "$TRAK" daemon --socket "$WORK/shared/s.sock" 2>"$WORK/d4.log" &&
    { echo "FAIL: the daemon replaced another user's socket"; fail=1; }
  expect_lines "$WORK/d4.log" "a socket of uid $ouid, not yours (uid 0); refusing to replace it"
  # (d) Root's daemon in its private directory: the other user cannot reach its sessions.
  rm -rf "$TMPDIR/trak-$me"
  "$TRAK" daemon 2>"$WORK/d5.log" & d5=$!
  for _ in $(seq 50); do [ -S "$TMPDIR/trak-$me/trak.sock" ] && break; sleep 0.1; done
  TRAK_SOCKET="$TMPDIR/trak-$me/trak.sock" "${as_other[@]}" "$TRAK" status >"$WORK/st3.out" 2>&1 &&
    { echo "FAIL: another user queried root's daemon"; fail=1; }
  expect_lines "$WORK/st3.out" "Permission denied"
  kill $d5; wait $d5 2>/dev/null
fi

[ $fail = 0 ] || exit 1
if [ -n "$skipped" ]; then echo "SKIP: $skipped"; exit 77; fi
echo "restricted SQL and the daemon's socket hold"
