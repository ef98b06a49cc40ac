"""trak's trace processor from Python, in the shape of Perfetto's `perfetto.trace_processor`:
TraceProcessor loads one trace and answers SQL; BatchTraceProcessor (trak/batch.py) many.

    from trak.trace_processor import TraceProcessor
    with TraceProcessor(trace="app.pftrace") as tp:
        df = tp.query("select ts, dur, name from slice").as_pandas_dataframe()
"""
import ctypes
import dataclasses
import os
import threading
from typing import Dict, Optional, Sequence

from . import _lib
from ._result import QueryResultIterator, Row, TraceProcessorException, fetch

__all__ = ["TraceProcessor", "TraceProcessorConfig", "TraceProcessorException",
           "QueryResultIterator", "Row", "BatchTraceProcessor", "BatchTraceProcessorConfig",
           "builtin_metrics"]


@dataclasses.dataclass
class TraceProcessorConfig:
    """Options of a TraceProcessor (the ones trak has).

    library: path of libtrak_processor.so (default: TRAK_LIBRARY, the installed copy, the
        build it was installed from, the system loader).
    descriptions: files of slice description rules (docs/analysis.md), loaded after the trace.
    metrics_dir: a directory of NAME.sql metrics, looked up before the built-in ones.
    metric_params: values for {{key}} in metrics ({"threshold_ns": 1000000}).
    chunk_size: bytes read at a time from a file object.
    restrict_sql: run queries restricted, for SQL this program did not write: they read every
        table and may create their own (CREATE PERFETTO TABLE, INCLUDE PERFETTO MODULE), but
        ATTACH, DETACH, VACUUM INTO, writing PRAGMAs and changes to trak's tables fail.
    """
    library: Optional[str] = None
    descriptions: Sequence[str] = ()
    metrics_dir: Optional[str] = None
    metric_params: Optional[Dict[str, object]] = None
    chunk_size: int = 1 << 20
    restrict_sql: bool = False


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


class TraceProcessor:
    """One trace, imported into trak's tables and queried with SQL.

    trace: a path (str or os.PathLike), bytes, a binary file object or an iterator of byte
        chunks; any format trak reads (binary or text protobuf, JSON; gzipped or not).
    config: a TraceProcessorConfig. file_path: Perfetto's older name for a path trace.
    A trace that cannot be read or parsed raises TraceProcessorException.
    """

    def __init__(self, trace=None, addr=None, config=None, file_path=None):
        self._p = None
        if addr is not None:
            raise TraceProcessorException("trak runs in-process: addr is not supported")
        if trace is None:
            trace = file_path
        if trace is None:
            raise TraceProcessorException("no trace given")
        self.config = config or TraceProcessorConfig()
        self._lib = _lib.load(self.config.library)
        self._lock = threading.Lock()  # a processor is not thread-safe; calls take turns
        self._p = self._load(trace)
        for path in self.config.descriptions:
            self._check(self._lib.trak_processor_load_descriptions(
                self._p, os.fsencode(path), ctypes.byref(self._err)))
        if self.config.restrict_sql:
            self._check(self._lib.trak_processor_restrict_sql(self._p, ctypes.byref(self._err)))

    def _load(self, trace):
        lib, p, self._err = self._lib, ctypes.c_void_p(), _lib.Error()
        err = ctypes.byref(self._err)
        path = _trace_name(trace)
        if path is not None:
            self._check(lib.trak_processor_open_file(os.fsencode(path), None, ctypes.byref(p), err))
            return p
        self._check(lib.trak_processor_new(None, ctypes.byref(p), err))
        try:
            for chunk in _chunks(trace, self.config.chunk_size):
                chunk = chunk if isinstance(chunk, bytes) else bytes(chunk)
                self._check(lib.trak_processor_feed(p, chunk, len(chunk), err))
            self._check(lib.trak_processor_finish(p, err))
        except BaseException:
            lib.trak_processor_free(p)
            raise
        return p

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
        with self._lock:
            return self._run(sql)

    def metric(self, metrics, params=None):
        """Runs trak metrics (built-in names, or NAME.sql in config.metrics_dir) and returns
        {name: QueryResultIterator of NAME_output}. `params` add to config.metric_params.
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
        return out

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

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        if getattr(self, "_p", None):
            self.close()


from .batch import BatchTraceProcessor, BatchTraceProcessorConfig  # noqa: E402  (uses the above)
