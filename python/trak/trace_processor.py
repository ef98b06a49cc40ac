"""trak's trace processor from Python, in the shape of Perfetto's `perfetto.trace_processor`:
TraceProcessor loads one trace and answers SQL; BatchTraceProcessor (trak/batch.py) many.

    from trak.trace_processor import TraceProcessor
    with TraceProcessor(trace="app.pftrace") as tp:
        df = tp.query("select ts, dur, name from slice").as_pandas_dataframe()
"""
import ctypes
import os
import threading
import time

from . import _lib, _load, _summary
from ._metatrace import Metatrace
from ._closable import Closable
from ._config import TraceProcessorConfig
from ._result import QueryResultIterator, Row, TraceProcessorException, fetch
from .trace_uri_resolver import ResolverRegistry, default_registry

__all__ = ["TraceProcessor", "TraceProcessorConfig", "TraceProcessorException",
           "QueryResultIterator", "Row", "BatchTraceProcessor", "BatchTraceProcessorConfig",
           "builtin_metrics", "FailureHandling", "ResolverRegistry"]


def builtin_metrics(library=None):
    """Names of trak's built-in metrics."""
    lib = _lib.load(library)
    names, i = [], 0
    while True:
        name = lib.trak_metric_builtin_name(i)
        if name is None:
            return names
        names.append(name.decode())
        i += 1


def _resolve_one(registry, trace):
    """The one (trace, metadata) a reference resolves to; TraceProcessorException otherwise.
    A list is a trace's chunks here, as before resolvers (BatchTraceProcessor takes lists)."""
    if isinstance(trace, list):
        return ResolverRegistry.Result(trace, {})
    try:
        resolved = registry.resolve(trace)
    except ValueError as e:
        raise TraceProcessorException(str(e)) from None
    if not resolved:
        raise TraceProcessorException("%s did not resolve to a trace" % (
            _trace_name(trace) or "the trace argument"))
    if len(resolved) > 1:
        raise TraceProcessorException(
            "%s resolved to %d traces; TraceProcessor loads one: use BatchTraceProcessor"
            % (_trace_name(trace) or "the trace argument", len(resolved)))
    return resolved[0]


def _trace_name(trace):
    return os.fspath(trace) if isinstance(trace, (str, os.PathLike)) else None


def _chunks(trace, chunk_size):
    """The bytes of a trace given as bytes, a file object or an iterator of chunks."""
    if isinstance(trace, (bytes, bytearray, memoryview)):
        yield bytes(trace)
    elif hasattr(trace, "read"):
        while True:
            chunk = trace.read(chunk_size)
            if not chunk:
                return
            yield chunk
    else:
        try:
            chunks = iter(trace)
        except TypeError:
            raise TraceProcessorException(
                "trace must be a path, bytes, a file object or an iterator of bytes, not %s"
                % type(trace).__name__) from None
        for chunk in chunks:
            if not isinstance(chunk, (bytes, bytearray, memoryview)):
                raise TraceProcessorException("trace chunks must be bytes, not %s"
                                              % type(chunk).__name__)
            yield chunk


class TraceProcessor(Closable):
    """One trace, imported into trak's tables and queried with SQL.

    trace: a path (str or os.PathLike), a trace URI (`path:...`, a glob naming one file, or
        `NAME:key=value` of a resolver in config.resolver_registry), a TraceUriResolver,
        bytes, a binary file object or an iterator of byte chunks; any format trak reads
        (binary or text protobuf, JSON; gzipped or not).
    config: a TraceProcessorConfig. file_path: Perfetto's older name for a path trace.
    Input that is not a trace raises TraceProcessorException worded as `trak query` words it;
    a trace that lost data warns (raises with config.strict).
    """
    QueryResultIterator = QueryResultIterator
    Row = Row

    def __init__(self, trace=None, addr=None, config=None, file_path=None, metadata=None):
        self._p = None
        self._metatrace = None
        if addr is not None:
            raise TraceProcessorException("trak runs in-process: addr is not supported")
        if trace is not None and file_path is not None:
            raise TraceProcessorException("trace and file_path cannot both be specified.")
        if trace is None:
            trace = file_path
        if trace is None:
            raise TraceProcessorException("no trace given")
        self.config = config or TraceProcessorConfig()
        self._lib = _lib.load(self.config.library)
        self._lock = threading.Lock()  # a processor is not thread-safe; calls take turns
        self._err = _lib.Error()
        self.resolver_registry = self.config.resolver_registry or default_registry()
        resolved = _resolve_one(self.resolver_registry, trace)
        self._metadata = dict(metadata or resolved.metadata)
        trace = resolved.trace
        name = _trace_name(trace) or "trace"
        chunks = None if isinstance(trace, str) else _chunks(trace, self.config.chunk_size)
        self._p = _load.load(self._lib, trace, name, chunks, self.config.strict)
        for path in self.config.descriptions:
            self._check(self._lib.trak_processor_load_descriptions(
                self._p, os.fsencode(path), ctypes.byref(self._err)))

    @property
    def metadata(self):
        """The metadata the trace's resolver gave ({'_path': PATH} for a file), else {}."""
        return self._metadata

    def _check(self, rc):
        if rc < 0:
            raise TraceProcessorException(self._err.text())
        return rc

    def _live(self):
        if not self._p:
            raise TraceProcessorException("the trace processor is closed")
        return self._p

    def _run(self, sql):
        """Runs every statement of `sql`; returns the last one's result. Holds the lock."""
        lib = self._lib
        text = ctypes.create_string_buffer(sql.encode("utf-8"))
        start = ctypes.addressof(text)
        pos, result = start, None
        while True:
            q, tail = ctypes.c_void_p(), ctypes.c_void_p()
            self._check(lib.trak_query_open(self._live(), pos, ctypes.byref(q),
                                            ctypes.byref(tail), ctypes.byref(self._err)))
            if not q:
                break
            try:
                result = fetch(lib, q)
            finally:
                lib.trak_query_free(q)
            pos = tail.value
            if not pos or not text.raw[pos - start:].strip(b"\0 \t\r\n;"):
                break
        return QueryResultIterator(*result) if result else QueryResultIterator([], [], 0)

    def query(self, sql):
        """Runs the SQL (several statements are run in turn; the last one's rows are returned)
        and returns a QueryResultIterator. Raises TraceProcessorException with trak's
        message on an error."""
        start = time.monotonic_ns()
        with self._lock:
            result = self._run(sql)
        if self._metatrace is not None:
            self._metatrace.record("query", start, {"sql": sql, "rows": len(result)})
        return result

    def trace_summary(self, specs, metric_ids=None, metadata_query_id=None):
        """A structured summary of the trace, as Perfetto's: `specs` are TraceSummarySpec texts
        (metric_spec / metric_template_spec whose query is `sql`, `table` or
        `inner_query_id`, and shared `query` entries); the result has Perfetto's
        TraceSummary fields (metric_bundles[].specs / row[].values / row[].dimension,
        metadata). `metric_ids` picks metrics (default: all); `metadata_query_id` names a
        query whose rows (key, value) become `metadata`."""
        start = time.monotonic_ns()
        out = _summary.trace_summary(self.query, specs, metric_ids, metadata_query_id)
        if self._metatrace is not None:
            self._metatrace.record("trace_summary", start, {"metrics": len(out.metric_bundles)})
        return out

    def enable_metatrace(self):
        """Starts recording this processor's work (queries, metrics, summaries) as slices."""
        self._metatrace = Metatrace()

    def disable_and_read_metatrace(self):
        """Stops recording and returns it as the bytes of a Perfetto trace (open it with
        TraceProcessor(trace=bytes) or Perfetto's UI). Raises if it was not enabled."""
        if self._metatrace is None:
            raise TraceProcessorException("metatrace is not enabled: call enable_metatrace()")
        data, self._metatrace = self._metatrace.serialize(), None
        return data

    def export(self, output_path, export_format="sqlite"):
        """Writes the trace's tables to a SQLite database file (as `trak export`); the only
        format trak has (Perfetto's arrow_tar and perfetto raise)."""
        if export_format != "sqlite":
            raise TraceProcessorException("export format %r is not supported: trak exports "
                                          "sqlite" % (export_format,))
        with self._lock:
            self._check(self._lib.trak_processor_export(
                self._live(), os.fsencode(output_path), ctypes.byref(self._err)))

    def metric(self, metrics, params=None):
        """Runs trak metrics (built-in names, or NAME.sql in config.metrics_dir) and returns a
        TraceMetrics: a field per metric (metrics.slice_stats, or metrics["slice_stats"]) whose
        value is its NAME_output table as a QueryResultIterator; str() prints it in text
        format. `params` add to config.metric_params.
        Annotations and alerts the metrics make are in the trace's tables afterwards (see
        annotations() and alerts())."""
        if isinstance(metrics, str):
            metrics = [metrics]
        values = dict(self.config.metric_params or {})
        values.update(params or {})
        lib, err = self._lib, ctypes.byref(self._err)
        names = (ctypes.c_char_p * max(len(metrics), 1))(*[m.encode() for m in metrics])
        kv = [("%s=%s" % item).encode() for item in values.items()]
        opts = _lib.MetricsOptions(
            os.fsencode(self.config.metrics_dir) if self.config.metrics_dir else None,
            (ctypes.c_char_p * max(len(kv), 1))(*kv), len(kv))
        out = {}
        start = time.monotonic_ns()
        with self._lock:
            self._check(lib.trak_processor_compute_metrics(self._live(), names, len(metrics),
                                                           ctypes.byref(opts), err))
            for name in metrics:
                q = ctypes.c_void_p()
                self._check(lib.trak_processor_metric_output(self._p, name.encode(),
                                                             ctypes.byref(q), err))
                try:
                    out[name] = QueryResultIterator(*fetch(lib, q))
                finally:
                    lib.trak_query_free(q)
        if self._metatrace is not None:
            self._metatrace.record("metric", start, {"metrics": ",".join(metrics)})
        return _summary.TraceMetrics(**out)

    def alerts(self):
        """The alerts raised by the metrics run so far, by time."""
        return self.query("SELECT ts, dur, alert_type, metric, track_name, message, "
                          "source_slice_id FROM alert ORDER BY ts, id")

    def annotations(self):
        """The slices the metrics run so far added on annotation tracks, by time."""
        return self.query(
            "SELECT s.id, s.ts, s.dur, s.name, s.depth, s.track_id, t.name AS track_name, "
            "t.metric, extract_arg(s.arg_set_id, 'annotation.source_slice_id') AS "
            "source_slice_id, extract_arg(s.arg_set_id, 'annotation.alert_type') AS alert_type "
            "FROM slice s JOIN annotation_track t ON s.track_id = t.id ORDER BY s.ts, s.id")

    def add_descriptions(self, text, source=None):
        """Adds slice description rules given as text (SliceDescriptionRules in protobuf text
        format; see docs/analysis.md). Raises TraceProcessorException naming line and column."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        with self._lock:
            self._check(self._lib.trak_processor_add_descriptions(
                self._live(), data, len(data), source.encode() if source else None,
                ctypes.byref(self._err)))

    def describe_slice(self, slice_id):
        """{'description': ..., 'doc_link': ... or None} for a slice, or None when no rule
        matches it (or there is no such slice)."""
        desc, link = ctypes.c_char_p(), ctypes.c_char_p()
        with self._lock:
            if not self._lib.trak_processor_describe_slice(self._live(), int(slice_id),
                                                           ctypes.byref(desc), ctypes.byref(link)):
                return None
            return {"description": desc.value.decode("utf-8", "replace"),
                    "doc_link": link.value.decode("utf-8", "replace") if link.value else None}

    def close(self):
        """Frees the trace's tables. Results already returned stay usable."""
        with self._lock:
            if self._p:
                self._lib.trak_processor_free(self._p)
                self._p = None

    def _open(self):
        return bool(self._p)


# Perfetto's package exports these from trace_processor too.
from .batch_trace_processor import (BatchTraceProcessor, BatchTraceProcessorConfig,  # noqa: E402
                                    FailureHandling)
