#!/usr/bin/env python3
"""`trak shell` on a terminal (a pty): Ctrl-C stops a running statement and returns to the
prompt with the trace still loaded, Ctrl-C at the prompt drops the line being typed, and Tab
completes table and column names. Usage: shell_tty.py TRAK TRACE"""
import os
import pty
import select
import sys
import tempfile
import time

trak, trace = sys.argv[1], sys.argv[2]
home = tempfile.mkdtemp()  # the shell's history file goes here
pid, fd = pty.fork()
if pid == 0:
    supp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support",
                        "lsan_libedit.supp")
    os.environ.update(TERM="xterm", HOME=home, LSAN_OPTIONS="suppressions=" + supp)
    os.execv(trak, [trak, "shell", trace])

seen = b""


def read_until(pattern, timeout=60):
    """Reads the terminal until `pattern` appears; returns what came up to it."""
    global seen
    end = time.time() + timeout
    while pattern not in seen:
        ready, _, _ = select.select([fd], [], [], max(0.0, end - time.time()))
        if not ready:
            sys.exit(f"FAIL: no {pattern!r} on the terminal; last output: {seen[-400:]!r}")
        try:
            seen += os.read(fd, 4096)
        except OSError:
            sys.exit(f"FAIL: the shell ended while waiting for {pattern!r}: {seen[-400:]!r}")
    i = seen.index(pattern) + len(pattern)
    out, seen = seen[:i], seen[i:]
    return out


def send(data):
    os.write(fd, data)


read_until(b"trak> ")

# A statement that never ends: Ctrl-C (repeated, in case the first one comes before the
# statement starts) stops it with an error, and the prompt comes back.
send(b"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c;\r")
read_until(b"FROM c;\r\n")
out = b""
for attempt in range(50):
    time.sleep(0.2)
    send(b"\x03")
    end = time.time() + 2
    while b"interrupted" not in out and time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            out += os.read(fd, 4096)
    if b"interrupted" in out:
        break
seen = out + seen
out = read_until(b"trak> ")
if b"interrupted" not in out:
    sys.exit(f"FAIL: Ctrl-C did not interrupt the statement: {out!r}")

# The trace is still there.
send(b"select count(*) as n from slice;\r")
out = read_until(b"trak> ")
if b"\r\n3\r\n" not in out:
    sys.exit(f"FAIL: the shell lost its trace after Ctrl-C: {out!r}")

# Ctrl-C at the prompt drops the half-typed statement (else the next line would continue it).
send(b"select 'left")
read_until(b"'left")
send(b"\x03")
read_until(b"trak> ")
send(b"select 'right' as r;\r")
out = read_until(b"trak> ")
if b"\r\nright\r\n" not in out or b"error" in out:
    sys.exit(f"FAIL: Ctrl-C at the prompt kept the line: {out!r}")

# Tab completes a table name and a column name.
send(b"select count(*) as tracks from thread_tr\t;\r")
out = read_until(b"trak> ")
if b"tracks" not in out or b"error" in out:
    sys.exit(f"FAIL: tab did not complete thread_track: {out!r}")
send(b"select dep\t as d from slice where depth = 1;\r")
out = read_until(b"trak> ")
if b"\r\n1\r\n" not in out or b"error" in out:
    sys.exit(f"FAIL: tab did not complete depth: {out!r}")

# Tab completes a dotted module name after INCLUDE PERFETTO MODULE.
send(b"include perfetto module slices.with_cont\t;\r")
read_until(b"trak> ")
send(b"select count(*) as n from thread_slice;\r")
out = read_until(b"trak> ")
if b"error" in out:
    sys.exit(f"FAIL: tab did not complete the module slices.with_context: {out!r}")

# Multibyte input arrives whole; a byte that is not UTF-8 becomes U+FFFD, the next one kept.
send("select 'é中' as u, length('a".encode() + b"\xc3" + b"b') as n;\r")
out = read_until(b"trak> ")
if "é中".encode() not in out or b" 3\r\n" not in out:
    sys.exit(f"FAIL: multibyte input: {out!r}")

send(b".quit\r")
_, status = os.waitpid(pid, 0)
if os.WEXITSTATUS(status) != 0:
    sys.exit(f"FAIL: the shell exited with {status}")
print("shell terminal tests pass")
