"""BatchTraceProcessor as Perfetto's: queries over several traces, the flattened frame with
metadata columns, single results, load and execute failures (raised by default, counted in
stats() with INCREMENT_STAT), observers, URIs, metrics and threads."""
import io

import pandas as pd
import pytest

from trak.batch_trace_processor import (BatchTraceProcessor, BatchTraceProcessorConfig,
                                        FailureHandling)
from trak.trace_processor import TraceProcessorException

COUNT = BatchTraceProcessorConfig(load_failure_handling=FailureHandling.INCREMENT_STAT,
                                  execute_failure_handling=FailureHandling.INCREMENT_STAT)


def traces(small_trace, small_trace_file, app_trace):
    return [small_trace_file, app_trace, small_trace, io.BytesIO(small_trace)]


def test_query_gives_a_frame_per_trace(small_trace, small_trace_file, app_trace):
    with BatchTraceProcessor(traces(small_trace, small_trace_file, app_trace)) as btp:
        assert btp.names == [small_trace_file, app_trace, "trace 2", "trace 3"]
        assert btp.failures == []
        frames = btp.query("select count(*) as n from slice")
        assert len(frames) == 4 and all(isinstance(f, pd.DataFrame) for f in frames)
        counts = [int(f["n"][0]) for f in frames]
        assert counts[0] == counts[2] == counts[3] == 3 and counts[1] > 3
        assert len(btp.processors) == 4


def test_query_and_flatten_names_the_trace(small_trace, small_trace_file, app_trace):
    with BatchTraceProcessor(traces(small_trace, small_trace_file, app_trace)) as btp:
        df = btp.query_and_flatten("select name, ts from slice where depth = 0 order by ts")
        per_trace = btp.query("select name, ts from slice where depth = 0 order by ts")
    # `trace` names each row's source; the resolver's metadata (_path of files) are columns
    assert list(df.columns) == ["trace", "name", "ts", "_path"]
    assert len(df) == sum(len(f) for f in per_trace)
    assert df[df["trace"] == "trace 2"]["_path"].isna().all()
    assert df["ts"].dtype == "int64"
    first = df[df["trace"] == small_trace_file]
    assert first["name"].tolist() == ["héllo wörld ✓", "日本語"]


def test_load_failure_raises_by_default_as_perfetto(tmp_path, small_trace):
    (tmp_path / "app.c").write_text("int main() { return 0; }\n")
    with pytest.raises(TraceProcessorException, match="app.c: not a trace"):
        BatchTraceProcessor([small_trace, str(tmp_path / "app.c")])


def test_load_failures_counted_with_increment_stat(tmp_path, small_trace):
    missing = str(tmp_path / "missing.pb")
    source = tmp_path / "app.c"
    source.write_text("int main() { return 0; }\n")
    with pytest.warns(RuntimeWarning, match="3 of 5 traces failed"):
        btp = BatchTraceProcessor([small_trace, missing, str(tmp_path), str(source),
                                   small_trace], config=COUNT)
    with btp:
        assert btp.names == ["trace 0", "trace 4"]
        assert btp.stats().load_failures == 3 and btp.stats().execute_failures == 0
        assert [name for name, _ in btp.failures] == [missing, str(tmp_path), str(source)]
        assert btp.failures[0][1] == missing + ": No such file or directory"
        assert btp.failures[1][1] == str(tmp_path) + ": is a directory, not a trace file"
        assert btp.failures[2][1].startswith(str(source) + ": not a trace (text format error")
        df = btp.query_and_flatten("select count(*) as n from slice")
        assert df["n"].tolist() == [3, 3]


def test_all_failed_gives_empty_results(tmp_path):
    with pytest.warns(RuntimeWarning):
        btp = BatchTraceProcessor([str(tmp_path / "a.pb")], config=COUNT)
    with btp:
        assert btp.query("select 1") == []
        assert list(btp.query_and_flatten("select 1").columns) == ["trace"]


def test_execute_failures_raise_or_count(small_trace, app_trace):
    # The query fails on the first trace only: the table exists in the second.
    with BatchTraceProcessor([small_trace, app_trace]) as btp:
        btp.processors[1].query("create table only_here as select 7 as x")
        with pytest.raises(TraceProcessorException, match="trace 0: no such table: only_here"):
            btp.query("select x from only_here")
    with BatchTraceProcessor([small_trace, app_trace], config=COUNT) as btp:
        btp.processors[1].query("create table only_here as select 7 as x")
        frames = btp.query("select x from only_here")
        assert frames[0].empty and frames[1]["x"].tolist() == [7]  # as Perfetto: an empty frame
        assert btp.stats().execute_failures == 1
        assert len(btp.failures) == 1 and btp.failures[0][0] == "trace 0"
        assert btp.failures[0][1].startswith("no such table: only_here")
        flat = btp.query_and_flatten("select x from only_here")
        assert flat["x"].dropna().tolist() == [7] and btp.stats().execute_failures == 2


def test_query_single_result(small_trace, app_trace):
    with BatchTraceProcessor([small_trace, app_trace]) as btp:
        assert btp.query_single_result("select count(*) from slice") == [3, 23]
        with pytest.raises(TraceProcessorException, match="single row"):
            btp.query_single_result("select name from slice")
        with pytest.raises(TraceProcessorException, match="single column"):
            btp.query_single_result("select 1, 2")


def test_execute_and_flatten_and_observer(small_trace, app_trace):
    seen = []

    class Observer(BatchTraceProcessor.Observer):
        def trace_processed(self, metadata, execution_time_seconds):
            seen.append((dict(metadata), execution_time_seconds >= 0))

    with BatchTraceProcessor([small_trace, app_trace], observer=Observer()) as btp:
        df = btp.execute_and_flatten(lambda tp: tp.query(
            "select count(*) as n from slice").as_pandas_dataframe())
    assert df["n"].tolist() == [3, 23] and df["_path"].tolist()[1] == app_trace
    assert sorted(seen, key=str) == sorted([({}, True), ({"_path": app_trace}, True)], key=str)


def test_uri_resolving_to_many_traces(tmp_path, small_trace):
    for i in range(3):
        (tmp_path / ("t%d.pbtxt" % i)).write_bytes(small_trace)
    with BatchTraceProcessor("path:%s/*.pbtxt" % tmp_path) as btp:
        assert btp.names == [str(tmp_path / ("t%d.pbtxt" % i)) for i in range(3)]
        assert btp.query_single_result("select count(*) from slice") == [3, 3, 3]
    btp.close()  # twice is fine
    assert btp.closed


def test_sql_error_names_the_trace(small_trace):
    with BatchTraceProcessor([small_trace, small_trace]) as btp:
        with pytest.raises(TraceProcessorException, match="trace 0: no such table: nope"):
            btp.query("select * from nope")


def test_metric_over_the_batch(app_trace):
    with BatchTraceProcessor([app_trace, app_trace]) as btp:
        outs = btp.metric(["slice_stats"])
    assert len(outs) == 2
    a, b = (o["slice_stats"].as_pandas_dataframe() for o in outs)
    assert a.equals(b) and len(a) > 0


def test_many_traces_on_threads(small_trace):
    config = BatchTraceProcessorConfig(max_workers=4)
    with BatchTraceProcessor([small_trace] * 16, config=config) as btp:
        df = btp.query_and_flatten("select name from slice")
        assert len(df) == 48 and df["trace"].nunique() == 16
        assert btp.execute(lambda tp: len(tp.query("select * from slice"))) == [3] * 16
