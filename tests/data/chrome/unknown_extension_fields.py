"""Writes a 3-packet binary trace whose TrackEvents carry fields no schema has (protoc's text
format cannot say them): one at the top level, one inside chrome_mojo_event_info."""
import sys
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F; v >>= 7
        if v: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def key(n, w): return varint(n << 3 | w)
def vfield(n, v): return key(n, 0) + varint(v)
def lfield(n, b): return key(n, 2) + varint(len(b)) + b
thread = lfield(4, vfield(1, 10) + vfield(2, 11) + lfield(5, b"CrBrowserMain"))  # ThreadDescriptor
desc = lfield(60, vfield(1, 11) + thread)  # TrackDescriptor uuid 11
mojo = lfield(1, b"Watcher") + vfield(99, 1) + lfield(3, b"network.mojom.URLLoader")
ev1 = vfield(9, 3) + vfield(11, 11) + lfield(23, b"unknown top") + vfield(1999, 5)
ev2 = vfield(9, 3) + vfield(11, 11) + lfield(23, b"unknown nested") + lfield(38, mojo)
pk = lambda body: lfield(1, vfield(10, 1) + body)
trace = pk(vfield(8, 1) + vfield(13, 1) + desc) + pk(vfield(8, 10) + lfield(11, ev1)) + pk(vfield(8, 20) + lfield(11, ev2))
open(sys.argv[1], "wb").write(trace)
