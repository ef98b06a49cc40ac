#!/usr/bin/env python3
"""Runs the query set (bench/query_set.sql) in trak and in Perfetto's trace_processor_shell on one
trace, side by side (issue 29): query time inside each process, import excluded, and whether
the two print the same answer.

  bench/query_side_by_side.py TRACE [--tp PATH] [--build DIR] [--runs N] [--only NAME,...]

Perfetto: every query runs in a fresh `trace_processor_shell query --perf-file F -f Q TRACE`;
the perf file's second number is the time of the query's statements (import excluded). trak:
`query_bench TRACE Q 1` in a fresh process gives the same cold figure (its first run, lazily
built indexes included), `query_bench TRACE Q 5` the warm best of five runs in one process (--warm-runs N).
Figures are the best over --runs processes: on a shared machine the least disturbed run. The answers compared are what `trak query` and
Perfetto's shell print (trak's default format is Perfetto's): byte-identical or not.

--tp-one-process (for big traces, where Perfetto's import takes minutes): Perfetto runs the whole
set twice in one interactive shell (each query on one line of its stdin), and its times are the
shell's "Query executed in" figures (statements run up to the answer's first row; every query of
the set but top_per_thread answers one row or sorts before its first); cold is the first pass,
warm the second. Answers are then not compared (the interactive shell prints another format).
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


def perfetto_one_process(tp, trace, queries):
    """{name: (cold ms, warm ms)}: the set run twice in one interactive shell."""
    lines = []
    for _ in range(2):
        for _, text in queries:
            sql = " ".join(l for l in text.splitlines() if l.strip() and not l.lstrip().startswith("--"))
            lines.append(sql)
            lines.extend([""] * 64)  # answers "Enter for more records" after each 32 rows
    r = subprocess.run([tp, trace], input="\n".join(lines) + "\n.q\n", stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    times = [float(x) for x in re.findall(r"Query executed in ([0-9.]+) ms", r.stdout)]
    if len(times) != 2 * len(queries):
        sys.exit("perfetto printed %d times for %d queries: %s" % (len(times), 2 * len(queries),
                                                                   r.stderr[-2000:]))
    n = len(queries)
    return {name: (times[i], times[n + i]) for i, (name, _) in enumerate(queries)}


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
    ap.add_argument("--tp-one-process", action="store_true")
    ap.add_argument("--warm-runs", type=int, default=5, help="runs of trak's warm process")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    bench = os.path.join(a.build, "query_bench")
    trak = os.path.join(a.build, "trak")
    tmp = tempfile.mkdtemp(prefix="trak_side_by_side_")
    print("%-22s %10s %10s %12s %8s %8s  %s" %
          ("query", "trak ms", "warm ms", "perfetto ms", "ratio", "rows", "answers"))
    logs = {"cold": 0.0, "warm": 0.0}
    n = 0
    queries = [(name, text) for name, text in blocks(a.queries) if not only or name in only]
    one = perfetto_one_process(a.tp, a.trace, queries) if a.tp_one_process else None
    if one:
        print("perfetto, one process (cold, warm ms): " +
              ", ".join("%s %.1f %.1f" % (k, v[0], v[1]) for k, v in one.items()), flush=True)
    for name, text in queries:
        qfile = os.path.join(tmp, name + ".sql")
        with open(qfile, "w") as f:
            f.write(text)
        pfile = os.path.join(tmp, name + ".perf")
        tp_times, tp_out = [one[name][0]] if one else [], None
        for _ in range(0 if one else a.runs):
            ms, tp_out = perfetto_ms(a.tp, a.trace, qfile, pfile)
            tp_times.append(ms)
        cold = []
        for _ in range(a.runs):
            ms, rows, _ = trak_ms(bench, a.trace, qfile, name, 1)
            cold.append(ms)
        warm, _, _ = trak_ms(bench, a.trace, qfile, name, a.warm_runs)
        same = None if one else run([trak, "query", a.trace, "-q", qfile]) == tp_out
        tp_ms, trak_cold = min(tp_times), min(cold)
        ratio = tp_ms / max(trak_cold, 0.001)
        logs["cold"] += math.log(ratio)
        tp_warm = one[name][1] if one else tp_ms  # Perfetto's warm: its second pass
        logs["warm"] += math.log(tp_warm / max(warm, 0.001))
        n += 1
        print("%-22s %10.1f %10.1f %12.1f %7.2fx %8s  %s" %
              (name, trak_cold, warm, tp_ms, ratio, rows, "not compared" if same is None else "same" if same else "DIFFER"),
              flush=True)
    if n:
        print("geometric mean of perfetto / trak: %.2fx cold, %.2fx warm, over %d queries" %
              (math.exp(logs["cold"] / n), math.exp(logs["warm"] / n), n))


if __name__ == "__main__":
    main()
