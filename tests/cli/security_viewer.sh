#!/usr/bin/env bash
# `trak ui` against slow and silent clients (issue #32, item 4): 80 loopback connections that
# each send one byte of a request head per second, and 10 that send a whole request and never
# read, must not keep a normal request out, and the trickling ones are closed by their fixed
# head deadline (10 s) although each byte arrives well within libmicrohttpd's idle timeout.
set -u
TRAK=$1
. "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"

echo '{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":5,"pid":1,"tid":1}]}' >"$WORK/t.json"
"$TRAK" ui "$WORK/t.json" >"$WORK/ui.out" 2>"$WORK/ui.err" & ui=$!
for _ in $(seq 100); do grep -q 'http://' "$WORK/ui.out" 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$WORK/ui.out") ||
  { echo "FAIL: no URL: $(cat "$WORK/ui.out" "$WORK/ui.err")"; kill $ui; exit 1; }
port=${url##*:}
port=${port%/}

timeout 120 python3 - "$port" <<'PY' || fail=1
import socket, sys, time, urllib.request
port = int(sys.argv[1])
head = b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
slow, silent = [], []
for _ in range(80):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(head[:1])
        slow.append([s, 1])
    except OSError:
        pass  # refused or reset: the server sheds load, which is allowed
for _ in range(10):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.sendall(head)
    silent.append(s)

def trickle():
    """One more byte on every slow connection still open; returns how many are open."""
    for c in slow:
        if c[0] is None:
            continue
        try:
            c[0].sendall(head[c[1] % 5:c[1] % 5 + 1])  # never the whole head
            c[1] += 1
        except OSError:
            c[0].close(); c[0] = None
    return sum(c[0] is not None for c in slow)

time.sleep(1)
trickle()
try:
    r = urllib.request.urlopen("http://127.0.0.1:%d/api/info" % port, timeout=30)
    ok = r.status == 200 and b"{" in r.read()
except OSError as e:
    ok = False
    print("FAIL: a normal request beside 90 slow clients:", e)
if not ok:
    sys.exit(1)
# The trickling connections end at their head deadline, not at an idle timeout each byte renews.
for _ in range(60):
    if trickle() == 0:
        break
    time.sleep(1)
left = trickle()
if left:
    print("FAIL: %d connections still open after one byte a second for 60 s" % left)
    sys.exit(1)
PY
kill -INT $ui
wait $ui || { echo "FAIL: trak ui did not stop cleanly"; fail=1; }
[ $fail = 0 ] || exit 1
echo "slow clients neither lock the viewer out nor hold a connection past its deadline"
