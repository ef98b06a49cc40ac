"""TraceProcessor: every way to give a trace, queries as rows and dataframes, column types,
NULLs, unicode, large results, errors, metrics, descriptions, annotations and alerts."""
import io
import math
import pathlib

import numpy as np
import pandas as pd
import pytest

import trak
from trak.trace_processor import (QueryResultIterator, TraceProcessor, TraceProcessorConfig,
                                  TraceProcessorException)

NAMES = ["héllo wörld ✓", "inner", "日本語"]


def names_of(tp):
    return [r.name for r in tp.query("select name from slice order by id")]


def test_reexported_from_package():
    assert trak.TraceProcessor is TraceProcessor
    assert trak.TraceProcessorException is TraceProcessorException
    assert trak.TraceProcessorConfig is TraceProcessorConfig


def test_trace_from_path_str_and_pathlike(small_trace_file):
    for trace in (small_trace_file, pathlib.Path(small_trace_file)):
        with TraceProcessor(trace=trace) as tp:
            assert names_of(tp) == NAMES


def test_trace_from_file_path_keyword(small_trace_file):
    with TraceProcessor(file_path=small_trace_file) as tp:
        assert names_of(tp) == NAMES


def test_trace_from_bytes_and_bytearray(small_trace):
    for trace in (small_trace, bytearray(small_trace), memoryview(small_trace)):
        with TraceProcessor(trace=trace) as tp:
            assert names_of(tp) == NAMES


def test_trace_from_file_object_in_small_reads(small_trace):
    config = TraceProcessorConfig(chunk_size=7)  # packets straddle the reads
    with TraceProcessor(trace=io.BytesIO(small_trace), config=config) as tp:
        assert names_of(tp) == NAMES


def test_trace_from_iterator_of_chunks(small_trace):
    chunks = (small_trace[i:i + 5] for i in range(0, len(small_trace), 5))
    with TraceProcessor(trace=chunks) as tp:
        assert names_of(tp) == NAMES


def test_gzipped_binary_trace(tmp_path, small_trace):
    import gzip
    with TraceProcessor(trace=gzip.compress(small_trace)) as tp:
        assert names_of(tp) == NAMES


def test_missing_file_raises_with_its_name(tmp_path):
    missing = str(tmp_path / "nope.pb")
    with pytest.raises(TraceProcessorException, match="nope.pb"):
        TraceProcessor(trace=missing)


def test_directory_raises(tmp_path):
    with pytest.raises(TraceProcessorException, match=str(tmp_path)):
        TraceProcessor(trace=tmp_path)


def test_malformed_text_keeps_the_packets_before_the_error():
    # As `trak query`: the valid part is imported and the error is counted in stats.
    # (A track is a row once an event uses it, as in Perfetto.)
    bad = (b'packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 1 name: "t" } }\n'
           b'packet { trusted_packet_sequence_id: 1 timestamp: 5 '
           b'track_event { type: TYPE_INSTANT track_uuid: 1 name: "e" } }\n'
           b'packet { timestamp: }\n')
    with pytest.warns(RuntimeWarning, match="1 problem lost data: text format error at line 3"):
        tp = TraceProcessor(trace=bad)
    with tp:
        assert [r.name for r in tp.query("select name from track")] == ["t"]
        errors = tp.query("select sum(value) as n from stats where severity = 'error'")
        assert next(iter(errors)).n >= 1


def test_binary_garbage_is_counted_and_warned():
    # An oversized packet is a limit, not malformed bytes: a warning, as `trak query` prints
    with pytest.warns(RuntimeWarning, match="over the 256 MiB limit"):
        tp = TraceProcessor(trace=b"\x0a\xff\xff\xff\xff\x0f garbage")
    with tp:
        assert len(tp.query("select * from slice")) == 0
        bad = tp.query("select sum(value) as n from stats where severity != 'info'")
        assert next(iter(bad)).n > 0


def test_wrong_trace_types_raise():
    with pytest.raises(TraceProcessorException, match="not int"):
        TraceProcessor(trace=42)
    with pytest.raises(TraceProcessorException, match="chunks must be bytes"):
        TraceProcessor(trace=["text"])
    with pytest.raises(TraceProcessorException, match="no trace"):
        TraceProcessor()
    with pytest.raises(TraceProcessorException, match="addr"):
        TraceProcessor(addr="localhost:9001")


def test_iterator_rows_have_attributes_and_positions(small_trace):
    with TraceProcessor(trace=small_trace) as tp:
        result = tp.query("select ts, dur, name, parent_id from slice order by ts")
        assert isinstance(result, QueryResultIterator)
        assert result.column_names == ["ts", "dur", "name", "parent_id"]
        rows = list(result)
        assert [(r.ts, r.dur, r.name, r.parent_id) for r in rows] == [
            (100, 100, NAMES[0], None), (150, 20, "inner", 0), (300, 0, NAMES[2], None)]
        assert rows[1][0] == 150 and len(rows[1]) == 4
        assert rows[1]._asdict() == {"ts": 150, "dur": 20, "name": "inner", "parent_id": 0}
        with pytest.raises(AttributeError, match="no_such"):
            rows[0].no_such
        assert list(result) == rows  # a result can be iterated again


def test_dataframe_types_survive(small_trace):
    with TraceProcessor(trace=small_trace) as tp:
        df = tp.query("select ts, dur * 1.5 as f, name, parent_id, null as nada "
                      "from slice order by ts").as_pandas_dataframe()
    assert list(df.columns) == ["ts", "f", "name", "parent_id", "nada"]
    assert df["ts"].dtype == np.int64
    assert df["f"].dtype == np.float64 and df["f"].tolist() == [150.0, 30.0, 0.0]
    assert df["name"].dtype == object and df["name"].tolist() == NAMES
    assert str(df["parent_id"].dtype) == "Int64"
    assert df["parent_id"].isna().tolist() == [True, False, True]
    assert df["parent_id"][1] == 0
    assert df["nada"].dtype == object and df["nada"].tolist() == [None] * 3


def test_nulls_in_every_type(small_trace):
    sql = """select * from (values (1, 1.5, 'a'), (null, null, null), (3, 2.5, 'c'))"""
    with TraceProcessor(trace=small_trace) as tp:
        result = tp.query(sql)
        df = result.as_pandas_dataframe()
    assert [tuple(r) for r in ([r[0], r[1], r[2]] for r in result)] == [
        (1, 1.5, "a"), (None, None, None), (3, 2.5, "c")]
    assert str(df.iloc[:, 0].dtype) == "Int64" and df.iloc[:, 0].isna().tolist() == [
        False, True, False]
    assert df.iloc[:, 1].dtype == np.float64 and math.isnan(df.iloc[1, 1])
    assert df.iloc[:, 2].tolist() == ["a", None, "c"]


def test_mixed_types_in_a_column(small_trace):
    with TraceProcessor(trace=small_trace) as tp:
        ints_doubles = tp.query("select * from (values (1), (2.5), (null))")
        assert [r[0] for r in ints_doubles] == [1.0, 2.5, None]
        assert ints_doubles.as_pandas_dataframe().iloc[:, 0].dtype == np.float64
        mixed = tp.query("select * from (values (1), ('two'), (3.5))")
        assert [r[0] for r in mixed] == ["1", "two", "3.5"]


def test_unicode_and_embedded_nul_and_blob(small_trace):
    with TraceProcessor(trace=small_trace) as tp:
        r = tp.query("select 'Ωmega 🚀' as s, cast(x'610062' as text) as nul, x'ff00' as b")
        row = next(iter(r))
        assert row.s == "Ωmega 🚀"
        assert row.nul == "a\0b"
        assert row.b == "\ufffd\0"  # bytes that are not UTF-8 are replaced, never dropped
        df = r.as_pandas_dataframe()
        assert df["nul"][0] == "a\0b" and df["s"][0] == "Ωmega 🚀"


def test_duplicate_column_names(small_trace):
    with TraceProcessor(trace=small_trace) as tp:
        r = tp.query("select 1 as a, 2 as a")
        assert next(iter(r)).a == 1
        df = r.as_pandas_dataframe()
        assert list(df.columns) == ["a", "a"] and df.iloc[0].tolist() == [1, 2]


def test_large_result_crosses_batches(small_trace):
    n = 200_000  # the C library hands rows over in batches of 65536
    sql = f"""with recursive c(i) as (select 0 union all select i + 1 from c where i < {n - 1})
              select i, i * 0.5 as half, 'name ' || (i % 1000) as name,
                     case when i % 3 = 0 then null else i end as sparse,
                     case when i < 100000 then 'early' else i end as late_mixed,
                     case when i < 100000 then null else 'x' || i end as late_str
              from c"""
    with TraceProcessor(trace=small_trace) as tp:
        result = tp.query(sql)
        df = result.as_pandas_dataframe()
    assert len(result) == n and len(df) == n
    assert df["i"].dtype == np.int64 and df["i"].tolist() == list(range(n))
    assert df["half"].dtype == np.float64 and df["half"].sum() == sum(range(n)) * 0.5
    assert df["name"].tolist() == ["name %d" % (i % 1000) for i in range(n)]
    assert str(df["sparse"].dtype) == "Int64"
    assert df["sparse"].isna().sum() == len(range(0, n, 3))
    assert df["late_mixed"][0] == "early" and df["late_mixed"][n - 1] == str(n - 1)
    assert df["late_str"][0] is None and df["late_str"][n - 1] == "x%d" % (n - 1)
    rows = list(result)
    assert rows[n - 1].i == n - 1 and rows[n - 1].name == "name %d" % ((n - 1) % 1000)


def test_empty_result_and_statements_without_rows(small_trace):
    with TraceProcessor(trace=small_trace) as tp:
        empty = tp.query("select id, name from slice where 0")
        assert list(empty) == [] and len(empty) == 0
        df = empty.as_pandas_dataframe()
        assert list(df.columns) == ["id", "name"] and len(df) == 0
        assert list(tp.query("create table t(x)")) == []
        assert list(tp.query("-- only a comment")) == []


def test_several_statements_return_the_last(small_trace):
    with TraceProcessor(trace=small_trace) as tp:
        r = tp.query("create view v as select name from slice where depth = 1; "
                     "select name from v;  ")
        assert [row.name for row in r] == ["inner"]


def test_sql_errors_raise_with_trak_message(small_trace):
    with TraceProcessor(trace=small_trace) as tp:
        with pytest.raises(TraceProcessorException, match="no such table: nope"):
            tp.query("select * from nope")
        with pytest.raises(TraceProcessorException, match="syntax error"):
            tp.query("selec 1")
        with pytest.raises(TraceProcessorException, match="no such column"):
            tp.query("select 1; select missing from slice")
        assert next(iter(tp.query("select 7 as x"))).x == 7  # still usable


def test_close_and_context_manager(small_trace):
    tp = TraceProcessor(trace=small_trace)
    result = tp.query("select name from slice")
    tp.close()
    tp.close()  # twice is fine
    assert len(list(result)) == 3  # results outlive the processor
    with pytest.raises(TraceProcessorException, match="closed"):
        tp.query("select 1")
    with TraceProcessor(trace=small_trace) as tp2:
        pass
    with pytest.raises(TraceProcessorException, match="closed"):
        tp2.query("select 1")


def test_library_not_found(small_trace):
    with pytest.raises(OSError, match="not found"):
        TraceProcessor(trace=small_trace, config=TraceProcessorConfig(library="/nonexistent.so"))


def test_builtin_metrics_listed():
    names = trak.builtin_metrics()
    assert "slice_stats" in names and "long_slices" in names


def test_metric_outputs(app_trace):
    with TraceProcessor(trace=app_trace) as tp:
        out = tp.metric(["slice_stats", "longest_slices"])
        assert set(out) == {"slice_stats", "longest_slices"}
        df = out["slice_stats"].as_pandas_dataframe()
        assert len(df) > 0 and "name" in df.columns
        assert df["count"].dtype == np.int64
        single = tp.metric("longest_slices")["longest_slices"]
        assert len(single) == len(out["longest_slices"])


def test_metric_errors(app_trace, analysis_dir):
    with TraceProcessor(trace=app_trace) as tp:
        with pytest.raises(TraceProcessorException, match="no metric named nope"):
            tp.metric(["nope"])
    config = TraceProcessorConfig(metrics_dir=analysis_dir + "/metrics")
    with TraceProcessor(trace=app_trace, config=config) as tp:
        with pytest.raises(TraceProcessorException, match="broken.sql:4: no such column"):
            tp.metric(["broken"])


def test_metrics_dir_params_annotations_and_alerts(app_trace, analysis_dir):
    config = TraceProcessorConfig(metrics_dir=analysis_dir + "/metrics")
    with TraceProcessor(trace=app_trace, config=config) as tp:
        assert len(tp.alerts()) == 0 and len(tp.annotations()) == 0
        frames = tp.metric(["frames"])["frames"].as_pandas_dataframe()
        assert list(frames.columns) == ["name", "ts", "dur"] and len(frames) > 0
        ann = tp.annotations().as_pandas_dataframe()
        assert set(ann["track_name"]) == {"Frames", "Main thread frames"}
        assert (ann["metric"] == "frames").all()
        tp.metric(["long_slices"], params={"threshold_ns": 100_000_000})
        alerts = tp.alerts().as_pandas_dataframe()
        assert len(alerts) > 0 and set(alerts["alert_type"]) <= {"warning", "error"}
        assert (alerts["dur"] >= 100_000_000).all()


def test_config_metric_params(app_trace):
    few = TraceProcessorConfig(metric_params={"threshold_ns": 10**12})
    with TraceProcessor(trace=app_trace, config=few) as tp:
        tp.metric(["long_slices"])
        assert len(tp.alerts()) == 0


def test_describe_slice(app_trace, analysis_dir):
    with TraceProcessor(trace=app_trace) as tp:
        d = tp.describe_slice(3)
        assert d["description"].startswith("Constructing a View hierarchy")
        assert d["doc_link"].startswith("https://developer.android.com/")
        assert tp.describe_slice(1) is None
        assert tp.describe_slice(10**9) is None
    config = TraceProcessorConfig(descriptions=[analysis_dir + "/rules.pbtxt"])
    with TraceProcessor(trace=app_trace, config=config) as tp:
        assert tp.describe_slice(1)["description"].startswith("The view traversal")


def test_add_descriptions_and_bad_rules(app_trace, analysis_dir):
    with TraceProcessor(trace=app_trace) as tp:
        tp.add_descriptions('rule { name: "traversal" description: "Mine." }')
        assert tp.describe_slice(1) == {"description": "Mine.", "doc_link": None}
        with pytest.raises(TraceProcessorException, match="mine.pbtxt: line 1, column 8"):
            tp.add_descriptions('rule { descripton: "x" }', source="mine.pbtxt")
    config = TraceProcessorConfig(descriptions=[analysis_dir + "/bad_rules.pbtxt"])
    with pytest.raises(TraceProcessorException, match="line 3, column 3"):
        TraceProcessor(trace=app_trace, config=config)
