#!/usr/bin/env python3
"""Writes a large tabular event file for timing `trak convert` (docs/performance.md).

usage: bench/gen_events.py ROWS OUT.csv|OUT.jsonl
Rows are complete slices on 8 thread tracks that never overlap, with a category and one int
argument; the same seed gives the same file.
"""
import json
import random
import sys

rows, out = int(sys.argv[1]), sys.argv[2]
random.seed(1)
ts = [0] * 8
with open(out, "w") as f:
    if out.endswith(".csv"):
        f.write("ts_us,dur_us,track,name,cat,bytes\n")
    for i in range(rows):
        k = i % 8
        ts[k] += random.randint(5, 50)
        dur = random.randint(1, 40) / 10
        track = f'process 1 "app"/thread {k + 10} "w{k}"'
        if out.endswith(".csv"):
            f.write(f"{ts[k]},{dur},{track},op{i % 50},io,{i % 4096}\n")
        else:
            f.write(json.dumps({"ts_us": ts[k], "dur_us": dur, "track": track,
                                "name": f"op{i % 50}", "cat": "io", "bytes": i % 4096}) + "\n")
