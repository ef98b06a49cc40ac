"""trak.dask on a dask.distributed LocalCluster of 2 worker processes on loopback: a fleet query
over 50 generated traces (a few broken) gives, per trace, the rows `trak query` gives, and the
broken ones are in failures() with the command line's message; plus the local scheduler, URIs,
dtypes across traces and the memory refusal."""
import json
import os
import subprocess

import dask
import pandas as pd
import pytest

import trak.dask
from trak.trace_processor import TraceProcessorException

SQL = "select ts, dur, name, parent_id from slice order by ts, id"
N_TRACES = 50


def trace_text(i):
    """A trace of i % 7 + 2 frames: DrawFrame slices with a child on some (parent_id NULL/set)."""
    packets = ['packet { track_descriptor { uuid: 1 name: "RenderThread" } }']
    for k in range(i % 7 + 2):
        ts = 1000 * k
        packets.append('packet { trusted_packet_sequence_id: 1 timestamp: %d track_event { '
                       'type: TYPE_SLICE_BEGIN track_uuid: 1 name: "DrawFrame" } }' % ts)
        if k % 2:
            packets.append('packet { trusted_packet_sequence_id: 1 timestamp: %d track_event { '
                           'type: TYPE_SLICE_BEGIN track_uuid: 1 name: "flush %d" } }'
                           % (ts + 10, i))
            packets.append('packet { trusted_packet_sequence_id: 1 timestamp: %d track_event { '
                           'type: TYPE_SLICE_END track_uuid: 1 } }' % (ts + 20))
        packets.append('packet { trusted_packet_sequence_id: 1 timestamp: %d track_event { '
                       'type: TYPE_SLICE_END track_uuid: 1 } }' % (ts + 100 + i))
    return "\n".join(packets) + "\n"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """50 traces: 46 good, a C source, a directory, a missing file and a truncated trace."""
    d = tmp_path_factory.mktemp("fleet")
    for i in range(N_TRACES - 4):
        (d / ("run%02d.pbtxt" % i)).write_text(trace_text(i))
    (d / "app.c.pbtxt").write_text("int main(void) { return 0; }\n")
    (d / "dir.pbtxt").mkdir()
    (d / "cut.pbtxt").write_text(trace_text(3)[:200])
    good = sorted(str(p) for p in d.glob("run*.pbtxt"))
    broken = [str(d / "app.c.pbtxt"), str(d / "dir.pbtxt"), str(d / "missing.pbtxt"),
              str(d / "cut.pbtxt")]
    return d, good, broken


def cli_rows(path):
    """The rows `trak query` prints for SQL on `path`, as dicts (exit 0 required)."""
    r = subprocess.run([os.environ["TRAK_CLI"], "query", path, SQL, "--format", "json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def cli_error(path):
    r = subprocess.run([os.environ["TRAK_CLI"], "query", path, SQL], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1
    return r.stderr.strip().split("\n")[-1].split("trak query: ", 1)[1]


def as_records(df):
    return [{k: (None if pd.isna(v) else v) for k, v in row.items()}
            for row in df.drop(columns="trace").to_dict("records")]


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  silence_logs=40) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def test_fleet_on_a_local_cluster_matches_trak_query(fleet, client):
    d, good, broken = fleet
    traces = [str(d / "*.pbtxt"), str(d / "missing.pbtxt")]
    rows = trak.dask.query(traces, SQL)
    fails = trak.dask.failures(traces, SQL)
    assert rows.npartitions == N_TRACES and list(rows.columns) == [
        "trace", "ts", "dur", "name", "parent_id"]
    df, failed = dask.compute(rows, fails)  # each trace loaded once, on the workers
    workers = client.run(os.getpid)
    assert len(workers) == 2 and os.getpid() not in workers.values()
    assert sorted(df["trace"].unique()) == good
    for path in good:
        assert as_records(df[df["trace"] == path]) == cli_rows(path), path
    assert str(df["parent_id"].dtype) == "Int64" and df["ts"].dtype == "Int64"
    assert sorted(failed["trace"]) == sorted(broken)
    for path, error in zip(failed["trace"], failed["error"]):
        if path.endswith("cut.pbtxt"):
            # `trak query` prints its rows and exits 1: lost data is a failure in a fleet
            assert error.startswith(path + ": 1 problem lost data: text format error at line")
        else:
            assert error == cli_error(path), path


def test_aggregation_on_the_cluster(fleet, client):
    d, good, _ = fleet
    df = trak.dask.query(good, "select dur from slice where name = 'DrawFrame'")
    p99 = df.groupby("trace")["dur"].max().compute()
    assert len(p99) == len(good)
    assert p99[good[5]] == 100 + 5  # the last frame of run05 lasts 100 + 5 ns


def test_local_scheduler_without_a_client(fleet):
    d, good, broken = fleet
    traces = good[:3] + broken[:1]
    with dask.config.set(scheduler="threads"):
        df = trak.dask.query(traces, "select count(*) as n from slice").compute()
        failed = trak.dask.failures(traces, "select count(*) as n from slice").compute()
    assert df["trace"].tolist() == good[:3] and df["n"].tolist() == [3, 4, 6]
    assert failed["trace"].tolist() == broken[:1]


def test_sql_error_is_a_failure_not_a_crash(fleet):
    d, good, _ = fleet
    with dask.config.set(scheduler="sync"):
        failed = trak.dask.failures(good[:2], "select nope from slice").compute()
        rows = trak.dask.query(good[:2], "select nope from slice").compute()
    assert len(rows) == 0 and list(rows.columns) == ["trace"]
    assert failed["error"].str.startswith("no such column: nope").all()


def test_trace_too_large_for_the_memory_is_refused(fleet):
    d, good, _ = fleet
    size = os.path.getsize(good[0])
    with dask.config.set(scheduler="sync"):
        failed = trak.dask.failures(good[:1], SQL, memory_limit=size).compute()
    assert failed["error"].tolist() == ["%s: too large for this worker: %.1f MB of trace needs "
                                        "about %.1f MB of memory, over the limit of %.1f MB"
                                        % (good[0], size / 1e6, 2 * size / 1e6, size / 1e6)]


def test_traces_of_expands_globs_and_path_uris(fleet):
    d, good, _ = fleet
    assert trak.dask.traces_of("path:%s/run0*.pbtxt" % d) == good[:10]
    assert trak.dask.traces_of([d / "run00.pbtxt"]) == [good[0]]
    with pytest.raises(TypeError, match="by path or URI"):
        trak.dask.traces_of([b"bytes"])
    with pytest.raises(TraceProcessorException, match="no trace URI resolver named 'ants'"):
        trak.dask.traces_of(["ants:id=1"])
