"""The rest of Perfetto's TraceProcessor API on trak, each against its Perfetto meaning: module
paths, config fields (accepted; ignored with a warning), input that is not a trace (worded as
`trak query`), lost data (warning, or strict), trace URIs and resolvers, metadata, next() on
results, metric() as TraceMetrics, trace_summary, the metatrace and export."""
import os
import sqlite3
import subprocess
import warnings

import pytest

from trak.batch_trace_processor import BatchTraceProcessor, BatchTraceProcessorConfig
from trak.trace_processor import (TraceProcessor, TraceProcessorConfig,
                                  TraceProcessorException)
from trak.trace_uri_resolver import ConstraintClass, ResolverRegistry, TraceUriResolver


def cli_error(path):
    """The message `trak query` exits 1 with, after its 'trak query: ' prefix."""
    r = subprocess.run([os.environ["TRAK_CLI"], "query", str(path), "select 1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    return r.stderr.strip().split("\n")[-1].split("trak query: ", 1)[1]


def test_module_paths_as_perfetto():
    import trak.batch_trace_processor as b
    import trak.trace_processor as t
    assert t.BatchTraceProcessor is b.BatchTraceProcessor
    assert {"BatchTraceProcessor", "BatchTraceProcessorConfig", "FailureHandling"} <= set(dir(b))
    assert BatchTraceProcessorConfig().tp_config == TraceProcessorConfig()
    assert TraceProcessor.QueryResultIterator is t.QueryResultIterator
    assert TraceProcessor.Row is t.QueryResultIterator.Row


def test_perfetto_config_fields_accepted_with_a_warning(small_trace):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TraceProcessorConfig()  # the defaults say nothing
    with pytest.warns(RuntimeWarning, match=r"bin_path=\.\.\.\) is ignored"):
        config = TraceProcessorConfig("/usr/bin/trace_processor_shell")  # positional, as Perfetto
    assert config.bin_path == "/usr/bin/trace_processor_shell"
    for field, value in [("unique_port", False), ("verbose", True), ("load_timeout", 5),
                         ("extra_flags", ["--dev"]), ("ingest_ftrace_in_raw", True),
                         ("enable_dev_features", True), ("fetch_latest_trace_processor", True),
                         ("enable_sql_file_access", True), ("add_sql_packages", ["/x"])]:
        with pytest.warns(RuntimeWarning, match=field):
            config = TraceProcessorConfig(**{field: value})
        with TraceProcessor(trace=small_trace, config=config) as tp:
            assert len(tp.query("select * from slice")) == 3


def test_not_a_trace_raises_as_trak_query(tmp_path):
    source = tmp_path / "app.c"
    source.write_text("#include <stdio.h>\nint main(void) { return 0; }\n")
    for path in (source, tmp_path, tmp_path / "missing.pb"):
        with pytest.raises(TraceProcessorException) as e:
            TraceProcessor(trace=str(path))
        assert str(e.value) == cli_error(path)
    with pytest.raises(TraceProcessorException, match=r"^trace: not a trace \(text format"):
        TraceProcessor(trace=source.read_bytes())


def test_lost_data_warns_or_raises_when_strict(tmp_path, small_trace):
    cut = tmp_path / "cut.pbtxt"
    cut.write_bytes(small_trace[:-40])  # the last packet is cut short
    with pytest.warns(RuntimeWarning, match=r"cut.pbtxt: 1 problem lost data: text format"):
        with TraceProcessor(trace=str(cut)) as tp:
            assert len(tp.query("select * from slice")) == 2
    with pytest.raises(TraceProcessorException, match=r"cut.pbtxt: 1 problem lost data"):
        TraceProcessor(trace=str(cut), config=TraceProcessorConfig(strict=True))


def test_path_uri_glob_and_metadata(tmp_path, small_trace, small_trace_file):
    with TraceProcessor(trace="path:" + small_trace_file) as tp:
        assert tp.metadata == {"_path": small_trace_file}
    with TraceProcessor(trace=small_trace) as tp:
        assert tp.metadata == {}
    (tmp_path / "a.pbtxt").write_bytes(small_trace)
    with TraceProcessor(trace=str(tmp_path / "a*.pbtxt")) as tp:  # a glob naming one file
        assert tp.metadata == {"_path": str(tmp_path / "a.pbtxt")}
    with pytest.raises(TraceProcessorException, match="resolved to 2 traces"):
        TraceProcessor(trace=str(tmp_path / "*.pbtxt"))
    with pytest.raises(TraceProcessorException, match="did not resolve to a trace"):
        TraceProcessor(trace=str(tmp_path / "*.json"))
    with pytest.raises(TraceProcessorException, match="cannot both be specified"):
        TraceProcessor(trace=small_trace, file_path=small_trace_file)


class BuildResolver(TraceUriResolver):
    """`build:id=1,2;rev>=3`: traces of builds, from a dict (a stand-in for a trace store)."""
    PREFIX = "build"
    STORE = {}

    def __init__(self, id=None, rev: ConstraintClass[str] = None):
        self.ids = id if isinstance(id, list) else [id]
        self.rev = rev

    def resolve(self):
        return [TraceUriResolver.Result(self.STORE[i], {"build": i}) for i in self.ids]


def test_registered_resolver(small_trace, small_trace_file, app_trace):
    BuildResolver.STORE.update({"1": small_trace_file, "2": app_trace, "3": small_trace})
    config = TraceProcessorConfig(resolver_registry=ResolverRegistry([BuildResolver]))
    with TraceProcessor(trace="build:id=3", config=config) as tp:
        assert tp.metadata == {"build": "3"} and len(tp.query("select * from slice")) == 3
    with TraceProcessor(trace=BuildResolver(id="2")) as tp:  # an instance needs no registry
        assert tp.metadata == {"build": "2", "_path": app_trace}  # path: metadata merge
    r = BuildResolver.from_trace_uri("build:id=1,2;rev>=3")
    assert r.ids == ["1", "2"] and r.rev == ConstraintClass("3", ConstraintClass.Op.GE)
    with pytest.raises(ValueError, match="only takes '='"):
        BuildResolver.from_trace_uri("build:id>1")
    bconfig = BatchTraceProcessorConfig(tp_config=config)
    with BatchTraceProcessor("build:id=1,2", config=bconfig) as btp:
        df = btp.query_and_flatten("select count(*) as n from slice")
        assert df["build"].tolist() == ["1", "2"] and df["n"].tolist() == [3, 23]
    with pytest.raises(TraceProcessorException, match="no trace URI resolver named 'build'"):
        TraceProcessor(trace="build:id=1")


def test_results_are_iterators_as_perfetto(small_trace):
    with TraceProcessor(trace=small_trace) as tp:
        result = tp.query("select name from slice order by id")
        assert next(result).name == "héllo wörld ✓" and next(result).name == "inner"
        assert len(list(result)) == 3  # `for` starts over
        with pytest.raises(TraceProcessorException, match="polars is not installed"):
            result.as_polars_dataframe()


def test_metric_returns_trace_metrics(app_trace):
    with TraceProcessor(trace=app_trace) as tp:
        metrics = tp.metric(["slice_stats"])
    assert metrics.HasField("slice_stats") and not metrics.HasField("long_slices")
    assert [name for name, _ in metrics.ListFields()] == ["slice_stats"]
    assert metrics.slice_stats is metrics["slice_stats"] and list(metrics) == ["slice_stats"]
    text = str(metrics)
    assert text.startswith("slice_stats {\n  row {\n    name: \"") and text.endswith("}\n")
    assert text.count("  row {") == len(metrics.slice_stats)


SPEC = """
query { id: "frames" sql { sql: "select name, dur from slice where name glob 'DrawFrame*' or name glob 'Choreographer*'" } }
metric_spec { id: "frame_dur" dimensions: "name" value: "dur" query { inner_query_id: "frames" } }
metric_spec { id: "slices" value: "n"
  query { sql { sql: "select count(*) as n from slice" } } }
metric_template_spec { id_prefix: "t" dimensions: "name" value_columns: "total" value_columns: "longest"
  query { sql { sql: "select name, sum(dur) as total, max(dur) as longest from slice group by name" } } }
query { id: "meta" sql { sql: "select 'os' as key, 'android' as value" } }
"""


def test_trace_summary(app_trace):
    with TraceProcessor(trace=app_trace) as tp:
        summary = tp.trace_summary([SPEC], metadata_query_id="meta")
        n = next(iter(tp.query("select count(*) as n from slice"))).n
        draws = [r.dur for r in tp.query("select dur from slice where name = 'DrawFrame'")]
        only = tp.trace_summary([SPEC], metric_ids=["slices"])
        with pytest.raises(TraceProcessorException, match="no metric with id 'nope'"):
            tp.trace_summary([SPEC], metric_ids=["nope"])
        with pytest.raises(TraceProcessorException, match="not simple_slices"):
            tp.trace_summary(['metric_spec { id: "x" value: "v" query { simple_slices {} } }'])
        with pytest.raises(TraceProcessorException, match="spec 0: cannot read"):
            tp.trace_summary(["metric_spec { id: @ }"])
    ids = [b.bundle_id for b in summary.metric_bundles]
    assert ids == ["frame_dur", "slices", "t_total", "t_longest"]
    slices = summary.metric_bundles[1]
    assert slices.specs[0].id == "slices" and slices.row[0].values[0].double_value == n
    assert slices.row[0].dimension == []
    frames = summary.metric_bundles[0]
    draw_rows = [r for r in frames.row if r.dimension[0].string_value == "DrawFrame"]
    assert [r.values[0].double_value for r in draw_rows] == [float(d) for d in draws]
    assert [(m.key, m.value) for m in summary.metadata] == [("os", "android")]
    assert [b.bundle_id for b in only.metric_bundles] == ["slices"]
    shared = tp_summary_of_bundle(app_trace)
    assert [s.id for s in shared.specs] == ["total", "longest"]
    assert all(len(r.values) == 2 for r in shared.row)
    assert len(shared.row) == len({r.dimension[0].string_value for r in shared.row})
    assert 'metric_bundles {\n  bundle_id: "slices"' in str(only)


def tp_summary_of_bundle(trace):
    """Two metrics in one bundle (bundle_id): each row holds both values."""
    spec = "".join('metric_spec { id: "%s" bundle_id: "b" dimensions: "name" value: "%s" '
                   'query { sql { sql: "select name, sum(dur) as total, max(dur) as longest '
                   'from slice group by name" } } }\n' % (v, v) for v in ("total", "longest"))
    with TraceProcessor(trace=trace) as tp:
        (bundle,) = tp.trace_summary([spec]).metric_bundles
    return bundle


def test_metatrace(small_trace):
    with TraceProcessor(trace=small_trace) as tp:
        with pytest.raises(TraceProcessorException, match="not enabled"):
            tp.disable_and_read_metatrace()
        tp.enable_metatrace()
        tp.query("select count(*) from slice")
        tp.query("select 1")
        data = tp.disable_and_read_metatrace()
        tp.query("select 2")  # after disable: not recorded
    with TraceProcessor(trace=data) as meta:
        rows = meta.query("select s.name, extract_arg(s.arg_set_id, 'debug.sql') as sql "
                          "from slice s order by ts")
        assert [(r.name, r.sql) for r in rows] == [
            ("query", "select count(*) from slice"), ("query", "select 1")]


def test_export_sqlite(tmp_path, small_trace):
    out = tmp_path / "t.db"
    with TraceProcessor(trace=small_trace) as tp:
        tp.export(str(out), "sqlite")
        with pytest.raises(TraceProcessorException, match="arrow_tar"):
            tp.export(str(tmp_path / "x"), "arrow_tar")
    assert sqlite3.connect(str(out)).execute("select count(*) from slice").fetchone() == (3,)
