#!/usr/bin/env python3
"""Cuts an excerpt of a binary Perfetto trace for a test: the packets of the chosen sequences
(trusted_packet_sequence_id), at most MAX packets from each, in file order, plus every packet
with a clock snapshot (timestamps need them). Packets are copied byte for byte.
  scripts/trace_excerpt.py TRACE OUT MAX SEQ [SEQ ...]
"""
import sys


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b):
    """(number, wire type, value or bytes, start, end) of each field of a message."""
    i = 0
    while i < len(b):
        start = i
        k, i = varint(b, i)
        n, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        elif w == 2:
            ln, i = varint(b, i)
            v, i = b[i:i + ln], i + ln
        else:
            raise ValueError("wire type %d at byte %d" % (w, start))
        yield n, w, v, start, i


def main():
    trace, out, most = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seqs = set(int(s) for s in sys.argv[4:])
    data = open(trace, "rb").read()
    kept, taken = [], {}
    for n, w, v, start, end in fields(data):
        if n != 1 or w != 2:
            continue
        numbers = {fn: x for fn, fw, x, _, _ in fields(v)}
        seq = numbers.get(10, 0)
        if 6 in numbers:  # TracePacket.clock_snapshot
            kept.append(data[start:end])
        elif seq in seqs and taken.get(seq, 0) < most:
            taken[seq] = taken.get(seq, 0) + 1
            kept.append(data[start:end])
    open(out, "wb").write(b"".join(kept))
    print("%d packets, %d bytes" % (len(kept), sum(map(len, kept))))


main()
