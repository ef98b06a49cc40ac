#!/usr/bin/env python3
"""Writes a multi-machine trace for timing remote clock conversion (docs/performance.md).

usage: bench/gen_remote_syncs.py SYNCS SAMPLES OUT.pb
One remote machine (machine_id 1) writes SYNCS RemoteClockSync packets a millisecond apart
(its BOOTTIME and MONOTONIC read by the client, BOOTTIME by the host), each followed by
SAMPLES/SYNCS power-rail samples, every other one in MONOTONIC (converted through the client's
readings). Written with a small protobuf encoder of its own: no protobuf module needed.
"""
import sys
S, E, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def varint(v):
    b = bytearray()
    while True:
        x = v & 0x7f; v >>= 7
        if v: b.append(x | 0x80)
        else: b.append(x); return bytes(b)
def f_varint(n, v): return varint(n << 3) + varint(v)
def f_len(n, data): return varint(n << 3 | 2) + varint(len(data)) + data
def clock(cid, ts): return f_len(1, f_varint(1, cid) + f_varint(2, ts))
def packet(body): return f_len(1, body)
buf = bytearray()
rails = f_len(40, f_len(1, f_varint(1, 0) + f_len(2, b"H") + f_len(3, b"s") + f_varint(4, 1000)))
buf += packet(rails)
buf += packet(f_len(6, clock(6, 0) + f_varint(2, 6)))
step = 1_000_000
per = max(1, E // S)
for s in range(S):
    c6 = 10_000_000 + s * step
    ex = f_len(1, f_len(2, clock(6, c6) + clock(3, c6 - 777)) + f_len(3, clock(6, c6 + 5000 + (s % 7))))
    buf += packet(f_varint(98, 1) + f_len(107, ex + ex))
    if s == 0:
        buf += packet(f_varint(98, 1) + f_len(40, f_len(1, f_varint(1, 0) + f_len(2, b"C") + f_len(3, b"s") + f_varint(4, 1000))))
    for k in range(per):
        ts = c6 + (k * step) // per
        clk = 3 if k % 2 else 6
        buf += packet(f_varint(98, 1) + f_varint(8, ts) + (f_varint(58, clk) if clk != 6 else b"") + f_len(40, f_len(2, f_varint(1, 0) + f_varint(3, k))))
open(out, "wb").write(buf)
