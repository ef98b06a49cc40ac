"""BatchTraceProcessor: queries over several traces, the flattened frame, traces that fail to
load (reported, or raised when asked), SQL errors, metrics, and threads."""
import io

import pandas as pd
import pytest

from trak.trace_processor import (BatchTraceProcessor, BatchTraceProcessorConfig,
                                  TraceProcessorException)


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
    assert list(df.columns) == ["trace", "name", "ts"]
    assert len(df) == sum(len(f) for f in per_trace)
    assert df["ts"].dtype == "int64"
    first = df[df["trace"] == small_trace_file]
    assert first["name"].tolist() == ["héllo wörld ✓", "日本語"]


def test_failed_traces_are_reported_not_fatal(tmp_path, small_trace):
    missing = str(tmp_path / "missing.pb")
    with pytest.warns(RuntimeWarning, match="2 of 4 traces failed"):
        btp = BatchTraceProcessor([small_trace, missing, str(tmp_path), small_trace])
    with btp:
        assert btp.names == ["trace 0", "trace 3"]
        assert [name for name, _ in btp.failures] == [missing, str(tmp_path)]
        assert "missing.pb" in btp.failures[0][1]
        df = btp.query_and_flatten("select count(*) as n from slice")
        assert df["n"].tolist() == [3, 3]


def test_fail_on_load_error_raises(tmp_path, small_trace):
    config = BatchTraceProcessorConfig(fail_on_load_error=True)
    with pytest.raises(TraceProcessorException, match="1 of 2 traces failed.*nope.pb"):
        BatchTraceProcessor([small_trace, str(tmp_path / "nope.pb")], config=config)


def test_all_failed_gives_empty_results(tmp_path):
    with pytest.warns(RuntimeWarning):
        btp = BatchTraceProcessor([str(tmp_path / "a.pb")])
    with btp:
        assert btp.query("select 1") == []
        assert list(btp.query_and_flatten("select 1").columns) == ["trace"]


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
