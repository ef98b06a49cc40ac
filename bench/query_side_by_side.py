#!/usr/bin/env python3
"""Runs the query set (bench/query_set.sql) in trak and in Perfetto's trace_processor_shell on one
trace, side by side (issue 29): query time inside each process, import excluded, and whether
the two print the same answer.

  bench/query_side_by_side.py TRACE [--tp PATH] [--build DIR] [--runs N] [--only NAME,...]

Perfetto: every query runs in a fresh `trace_processor_shell query --perf-file F -f Q TRACE`;
the perf file's second number is the time of the query's statements (import excluded). trak:
`query_bench TRACE Q 1` in a fresh process gives the same cold figure (its first run, lazily
built indexes included), `query_bench TRACE Q 5` the warm best of five runs in one process.
Figures are the best over --runs processes: on a shared machine the least disturbed run. The answers compared are what `trak query` and
Perfetto's shell print (trak's default format is Perfetto's): byte-identical or not.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = "-- query: "


def blocks(path):
    """(name, text) of every query of the set, text starting with its marker line."""
    text = open(path).read()
    out = []
    starts = [m.start() for m in re.finditer("^" + re.escape(MARK), text, re.M)]
    for i, s in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        block = text[s:end]
        out.append((block[len(MARK):block.index("\n")].strip(), block))
    return out


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    return r.stdout


def perfetto_ms(tp, trace, qfile, pfile):
    out = run([tp, "query", "--perf-file", pfile, "-f", qfile, trace])
    ns = int(open(pfile).read().split(",")[1])
    return ns / 1e6, out


def trak_ms(bench, trace, qfile, name, runs):
    """Best time of `runs` runs in one query_bench process (runs=1: the cold first run)."""
    out = run([bench, trace, qfile, str(runs), name])
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == name:
            return float(f[1]), f[3], f[4]
    sys.exit("query_bench printed no line for %s:\n%s" % (name, out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--tp", default="/work/oracle-build/bin/trace_processor_shell")
    ap.add_argument("--build", default=os.path.join(os.path.dirname(HERE), "build"))
    ap.add_argument("--queries", default=os.path.join(HERE, "query_set.sql"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    bench = os.path.join(a.build, "query_bench")
    trak = os.path.join(a.build, "trak")
    tmp = tempfile.mkdtemp(prefix="trak_side_by_side_")
    print("%-22s %10s %10s %12s %8s %8s  %s" %
          ("query", "trak ms", "warm ms", "perfetto ms", "ratio", "rows", "answers"))
    logs = {"cold": 0.0, "warm": 0.0}
    n = 0
    for name, text in blocks(a.queries):
        if only and name not in only:
            continue
        qfile = os.path.join(tmp, name + ".sql")
        with open(qfile, "w") as f:
            f.write(text)
        pfile = os.path.join(tmp, name + ".perf")
        tp_times, tp_out = [], None
        for _ in range(a.runs):
            ms, tp_out = perfetto_ms(a.tp, a.trace, qfile, pfile)
            tp_times.append(ms)
        cold = []
        for _ in range(a.runs):
            ms, rows, _ = trak_ms(bench, a.trace, qfile, name, 1)
            cold.append(ms)
        warm, _, _ = trak_ms(bench, a.trace, qfile, name, 5)
        same = run([trak, "query", a.trace, "-q", qfile]) == tp_out
        tp_ms, trak_cold = min(tp_times), min(cold)
        ratio = tp_ms / max(trak_cold, 0.001)
        logs["cold"] += math.log(ratio)
        logs["warm"] += math.log(tp_ms / max(warm, 0.001))
        n += 1
        print("%-22s %10.1f %10.1f %12.1f %7.2fx %8s  %s" %
              (name, trak_cold, warm, tp_ms, ratio, rows, "same" if same else "DIFFER"),
              flush=True)
    if n:
        print("geometric mean of perfetto / trak: %.2fx cold, %.2fx warm, over %d queries" %
              (math.exp(logs["cold"] / n), math.exp(logs["warm"] / n), n))


if __name__ == "__main__":
    main()
