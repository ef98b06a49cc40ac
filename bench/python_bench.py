#!/usr/bin/python3
"""Benchmark of the Python package (python/, docs/python.md); prints figures, asserts nothing.

  bench/python_bench.py [BUILD_DIR] [EVENTS] [fleet]   (defaults: build, 2000000; `fleet`:
                                                        part 4 only)

1. Import: TraceProcessor(trace=FILE) against `trak query FILE 'select 1'` (best of 3 each).
2. tp.query('select * from slice').as_pandas_dataframe() after the import (best of 3), split
   into the C library's columnar fetch alone and the Python side (copies, numpy, pandas).
3. BatchTraceProcessor over 8 traces (EVENTS/4 events each): load + a GROUP BY query on each,
   with 1 thread and with 2, and the same for sha256 as a control of what the machine allows.
4. trak.dask: a fleet query (load + GROUP BY) over 16 traces of EVENTS/8 events on a
   dask.distributed LocalCluster of 1 worker process and of 2, in traces per second.
The benchmark trace is bench/import_bench's (docs/performance.md), generated once in /tmp.
"""
import ctypes
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build"))
EVENTS = int(sys.argv[2]) if len(sys.argv) > 2 else 2_000_000
os.environ.setdefault("TRAK_LIBRARY", os.path.join(BUILD, "libtrak_processor.so"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

t0 = time.perf_counter()
import trak  # noqa: E402
from trak import _lib, _result  # noqa: E402
import pandas  # noqa: E402,F401
IMPORT_MODULES = time.perf_counter() - t0


def trace(events):
    path = "/tmp/trak_python_bench_%d.pb" % events
    if not os.path.exists(path):
        subprocess.run([os.path.join(BUILD, "import_bench"), str(events), path, "import-only"],
                       env=dict(os.environ, TRAK_BENCH_KEEP="1"), check=True,
                       stdout=subprocess.DEVNULL)
    return path


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def best(fn, runs=3):
    """(best wall, best CPU) seconds of fn() over `runs` runs."""
    walls, cpus = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), cpu()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(cpu() - c)
    return min(walls), min(cpus)


def cli_import(path):
    def run():
        subprocess.run([os.path.join(BUILD, "trak"), "query", path, "select 1"], check=True,
                       stdout=subprocess.DEVNULL)
    walls, cpus = [], []
    for _ in range(3):
        w, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        run()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        walls.append(time.perf_counter() - w)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return min(walls), min(cpus)


def fetch_only(tp):
    """The C columnar fetch of `select * from slice` with no copy out: the floor a C
    extension could reach."""
    lib, q, tail = tp._lib, ctypes.c_void_p(), ctypes.c_void_p()
    sql = ctypes.create_string_buffer(b"select * from slice")
    lib.trak_query_open(tp._p, ctypes.addressof(sql), ctypes.byref(q), ctypes.byref(tail), None)
    batch = (_lib.ColumnBatch * lib.trak_query_column_count(q))()
    calls = 0
    while lib.trak_query_fetch_columns(q, 0, batch, None) > 0:
        calls += 1
    lib.trak_query_free(q)
    return calls


def per_cell(tp, rows):
    """`rows` rows of `select * from slice` the plain way a binding would: trak_query_next
    and one typed getter per cell through ctypes. Returns seconds."""
    lib, q, tail = tp._lib, ctypes.c_void_p(), ctypes.c_void_p()
    for name, res in (("trak_query_next", ctypes.c_int), ("trak_query_type", ctypes.c_int),
                      ("trak_query_int", ctypes.c_int64), ("trak_query_double", ctypes.c_double),
                      ("trak_query_string", ctypes.c_char_p)):
        getattr(lib, name).restype = res
    lib.trak_query_next.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    for name in ("trak_query_type", "trak_query_int", "trak_query_double", "trak_query_string"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_int]
    sql = ctypes.create_string_buffer(b"select * from slice limit %d" % rows)
    lib.trak_query_open(tp._p, ctypes.addressof(sql), ctypes.byref(q), ctypes.byref(tail), None)
    ncols = lib.trak_query_column_count(q)
    getters = {1: lib.trak_query_int, 2: lib.trak_query_double, 3: lib.trak_query_string}
    start = time.perf_counter()
    out = []
    while lib.trak_query_next(q, None) > 0:
        row = []
        for c in range(ncols):
            t = lib.trak_query_type(q, c)
            row.append(getters[t](q, c) if t else None)
        out.append(row)
    elapsed = time.perf_counter() - start
    lib.trak_query_free(q)
    return elapsed


def fleet():
    """Part 4: traces per second of trak.dask.query on 1 and 2 worker processes."""
    import dask
    import distributed
    import trak.dask
    one = trace(EVENTS // 8)
    links = "/tmp/trak_fleet_bench_%d" % (EVENTS // 8)
    os.makedirs(links, exist_ok=True)
    paths = []
    for i in range(16):  # 16 names for the same file: 16 partitions, 16 imports
        paths.append(os.path.join(links, "t%02d.pb" % i))
        if not os.path.exists(paths[-1]):
            os.symlink(one, paths[-1])
    sql = "select name, count(*) as n, sum(dur) as total from slice group by name"
    print("trak.dask, %d traces of %d events (%.1f MB each), load + GROUP BY; load average %.1f"
          % (len(paths), EVENTS // 8, os.path.getsize(one) / 1e6, os.getloadavg()[0]))
    rates = {}
    for workers in (1, 2):
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      host="127.0.0.1", dashboard_address=None,
                                      silence_logs=40) as cluster, \
                distributed.Client(cluster) as client:
            meta = trak.dask.query(paths[:1], sql).compute().iloc[:0]
            meta = meta.astype({c: "Int64" for c in meta.columns if meta[c].dtype == "int64"})

            def run():
                return dask.compute(trak.dask.query(paths, sql, meta=meta))[0]
            def workers_cpu():
                return sum(client.run(cpu).values())
            run()  # warm: workers import trak and pandas
            before, start = workers_cpu(), time.perf_counter()
            wall, _ = best(run, runs=3)
            # CPU the workers got per second of the three runs: 2.0 is both cores all the time
            busy = (workers_cpu() - before) / (time.perf_counter() - start)
            rates[workers] = len(paths) / wall
        print("  %d worker%s: %.2f s wall, %.1f traces/s, %.2f cores busy" % (
            workers, "" if workers == 1 else "s", wall, rates[workers], busy))
    print("  2 workers / 1: %.2fx the throughput" % (rates[2] / rates[1]))


def main():
    if len(sys.argv) > 3 and sys.argv[3] == "fleet":
        return fleet()
    path = trace(EVENTS)
    print("trace: %s, %d events, %.1f MB; load average %.1f" % (
        path, EVENTS, os.path.getsize(path) / 1e6, os.getloadavg()[0]))
    print("import trak + pandas: %.2f s" % IMPORT_MODULES)

    cli = cli_import(path)
    py = best(lambda: trak.TraceProcessor(trace=path).close())
    print("import, trak query 'select 1':   %.3f s wall, %.3f s CPU" % cli)
    print("import, TraceProcessor(trace=):  %.3f s wall, %.3f s CPU  (%.0f%% of the CLI's "
          "CPU)" % (py + (100 * py[1] / cli[1],)))

    tp = trak.TraceProcessor(trace=path)
    rows = len(tp.query("select id from slice"))
    holder = {}
    total = best(lambda: holder.update(df=tp.query("select * from slice").as_pandas_dataframe()))
    fetch = best(lambda: fetch_only(tp))
    result = tp.query("select * from slice")
    frame = best(lambda: result.as_pandas_dataframe())
    print("select * from slice -> DataFrame: %.3f s wall, %.3f s CPU (%d rows x %d columns)"
          % (total + (rows, holder["df"].shape[1])))
    print("  C columnar fetch alone:       %.3f s wall (%d calls of 65536 rows)"
          % (fetch[0], fetch_only(tp)))
    print("  result -> DataFrame (numpy):  %.3f s wall" % frame[0])
    sample = min(rows, 100_000)
    cell = per_cell(tp, sample)
    print("  for scale, one ctypes call per cell: %.3f s for %d rows = %.2f s for all rows "
          "(before any DataFrame)" % (cell, sample, cell * rows / sample))
    tp.close()

    small = trace(EVENTS // 4)
    sql = "select name, count(*) as n, sum(dur) as total from slice group by name"
    times = {}
    for workers in (1, 2):
        config = trak.BatchTraceProcessorConfig(max_workers=workers)

        def run():
            with trak.BatchTraceProcessor([small] * 8, config=config) as btp:
                btp.query_and_flatten(sql)
        times[workers] = best(run, runs=2)
    # The same comparison for pure computation (sha256 of 8 x 64 MB, which releases Python's
    # lock too) shows how much of a second core the shared machine gave at that moment.
    import concurrent.futures
    import hashlib
    data = b"x" * (64 << 20)
    control = {}
    for workers in (1, 2):
        with concurrent.futures.ThreadPoolExecutor(workers) as ex:
            control[workers] = best(lambda: list(ex.map(lambda _: hashlib.sha256(data), range(8))),
                                    runs=2)
    print("BatchTraceProcessor, 8 traces of %d events, load + GROUP BY:" % (EVENTS // 4))
    # CPU / wall shows how many cores the threads kept busy, whatever else runs meanwhile.
    print("  1 thread:  %.2f s wall, %.2f s CPU (%.2f cores busy)" % (
        times[1] + (times[1][1] / times[1][0],)))
    print("  2 threads: %.2f s wall, %.2f s CPU (%.2f cores busy) -> %.2fx the throughput" % (
        times[2] + (times[2][1] / times[2][0], times[1][0] / times[2][0])))
    print("  control, sha256 on 2 threads: %.2fx the throughput of 1" % (
        control[1][0] / control[2][0]))
    fleet()


if __name__ == "__main__":
    main()
