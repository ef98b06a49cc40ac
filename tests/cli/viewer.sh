#!/usr/bin/env bash
# `trak ui` and `trak html` as commands: ui prints a 127.0.0.1 URL that serves the viewer and
# stops on SIGINT; bad options are one-line errors; html writes a self-contained file for every
# seed and golden trace, says when it summarises, and fails cleanly on an unreadable trace.
set -euo pipefail
shopt -s globstar # golden/**: goldens sit in subfolders by area
TRAK=$1
DATA=$TRAK_SOURCE_DIR/tests/data
TMP=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# ui: the URL, then a GET over bash's /dev/tcp, then Ctrl-C.
"$TRAK" ui "$DATA/seed/07_flows.pbtxt" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 100); do grep -q 'http://' "$TMP/out" && break; sleep 0.1; done
url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$TMP/out") || fail "no URL: $(cat "$TMP/out" "$TMP/err")"
port=${url##*:}
port=${port%/}
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /api/search?q=Request HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
reply=$(cat <&3)
exec 3<&-
grep -q '^HTTP/1.1 200' <<<"$reply" || fail "search: $reply"
grep -q '"rows":\[\[' <<<"$reply" || fail "search found nothing: $reply"
kill -INT "$pid"
wait "$pid" || fail "trak ui exited with $? on SIGINT"
pid=

expect_error() { # WANT COMMAND...: exits non-zero and says WANT on stderr
  local want=$1
  shift
  if "$@" >"$TMP/out" 2>"$TMP/err"; then fail "$* succeeded"; fi
  grep -qF -- "$want" "$TMP/err" || fail "$*: wanted '$want', got: $(cat "$TMP/err")"
}
expect_error "--port wants 0..65535" "$TRAK" ui "$DATA/seed/07_flows.pbtxt" --port 70000
expect_error "--bind nowhere: not an IPv4 address" "$TRAK" ui "$DATA/seed/07_flows.pbtxt" --bind nowhere
expect_error "usage: trak html" "$TRAK" html "$DATA/seed/07_flows.pbtxt"
expect_error "no-such-file" "$TRAK" html "$TMP/no-such-file" -o "$TMP/x.html"
expect_error "--max-slices wants a positive count" "$TRAK" html "$DATA/seed/07_flows.pbtxt" -o "$TMP/x.html" --max-slices 0
[ ! -e "$TMP/x.html" ] || fail "a failed trak html left a file"

# html: every trace trak reads makes a page with its data inline and nothing to fetch.
n=0
for trace in "$DATA"/seed/*.pbtxt "$DATA"/golden/**/*.pbtxt "$DATA"/golden/**/json_*.json; do
  out=$TMP/$(basename "$trace").html
  # Malformed input still makes its page, and exits 1 (docs/limits.md).
  want=0
  grep -qx "$(basename "$trace" .json)" "$DATA/golden/malformed.list" && want=1
  rc=0
  "$TRAK" html "$trace" -o "$out" 2>"$TMP/err" || rc=$?
  [ $rc = $want ] || fail "$trace: exits $rc, not $want: $(cat "$TMP/err")"
  grep -q 'window.TRAK_DATA = {"title":' "$out" || fail "$out: no data"
  grep -q 'window.TRAK_SQL = {"wasm":"' "$out" || fail "$out: no tables for SQL"
  # (sql.js names web pages in its messages: a URL counts only where a page would load it.)
  if grep -qE '<script src=|<link rel="stylesheet"|(src|href)=.?https?://|url\(.?https?://' "$out"; then
    fail "$out: refers to another file"
  fi
  n=$((n + 1))
done
[ "$n" -gt 10 ] || fail "only $n traces"

# Over the cap: summarised, and said so on stderr and in the page.
"$TRAK" html "$DATA/seed/07_flows.pbtxt" -o "$TMP/small.html" --max-slices 2 2>"$TMP/err"
grep -q 'trak html: .* slices and .* counter values summarised' "$TMP/err" || fail "no summary: $(cat "$TMP/err")"
grep -q '"summary":"[0-9]* slices' "$TMP/small.html" || fail "the page does not say it summarises"
# --max-sql-mb: a size or 0; a database over it is left out, said on stderr and in the page.
"$TRAK" html "$DATA/seed/07_flows.pbtxt" -o "$TMP/x.html" --max-sql-mb lots 2>"$TMP/err" && fail "--max-sql-mb lots accepted"
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "--max-sql-mb lots: $(cat "$TMP/err")"
"$TRAK" html "$DATA/seed/07_flows.pbtxt" -o "$TMP/x.html" --max-sql-mb 0 2>"$TMP/err" || fail "--max-sql-mb 0"
grep -q 'window.TRAK_SQL = {"error":' "$TMP/x.html" || fail "--max-sql-mb 0 still has tables"
echo "ok: ui served and stopped; $n traces to html"
