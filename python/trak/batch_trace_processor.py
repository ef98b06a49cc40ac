"""BatchTraceProcessor: the same SQL over many traces, loaded and queried on every core, as
Perfetto's `perfetto.batch_trace_processor` (same methods, config, failure handling and stats).

Each trace gets its own TraceProcessor; a pool of threads loads and queries them, and since the
C library runs with Python's lock released, the threads use all cores.
"""
import abc
import concurrent.futures
import dataclasses
import enum
import os
import time
import warnings
from typing import Any, Callable, Dict, List, Optional

from ._closable import Closable
from ._config import TraceProcessorConfig
from ._result import TraceProcessorException
from .trace_uri_resolver import default_registry

__all__ = ["BatchTraceProcessor", "BatchTraceProcessorConfig", "FailureHandling", "Stats"]


class FailureHandling(enum.Enum):
    """What a failing trace does to the batch: RAISE_EXCEPTION (the default, as Perfetto's)
    raises TraceProcessorException; INCREMENT_STAT counts it in stats() and goes on (the
    trace is left out, or its result is an empty DataFrame), and lists it in `failures`."""
    RAISE_EXCEPTION = 0
    INCREMENT_STAT = 1


@dataclasses.dataclass
class BatchTraceProcessorConfig:
    """tp_config: the TraceProcessorConfig of every trace. load_failure_handling,
    execute_failure_handling: see FailureHandling. max_workers (trak's): threads (default:
    the cores this process may use)."""
    tp_config: TraceProcessorConfig = dataclasses.field(default_factory=TraceProcessorConfig)
    load_failure_handling: FailureHandling = FailureHandling.RAISE_EXCEPTION
    execute_failure_handling: FailureHandling = FailureHandling.RAISE_EXCEPTION
    max_workers: Optional[int] = None


@dataclasses.dataclass
class Stats:
    """Failures counted under FailureHandling.INCREMENT_STAT."""
    load_failures: int = 0
    execute_failures: int = 0


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _label(trace, metadata, index):
    if "_path" in metadata:
        return metadata["_path"]
    if isinstance(trace, (str, os.PathLike)):
        return os.fspath(trace)
    return "trace %d" % index


class BatchTraceProcessor(Closable):
    """Loads `traces` in parallel: a list of references (paths, URIs, globs, TraceUriResolver
    instances, bytes, file objects, iterators of chunks), or one reference that resolves to
    several traces (`path:traces/*.pftrace`, a resolver).

    names: one name per loaded trace ("trace" column of query_and_flatten): its path, else
        "trace <index>". metadata: the resolver's metadata of each loaded trace.
    failures: [(name, message)] of the traces that failed (INCREMENT_STAT only).
    """

    class Observer(abc.ABC):
        """Told of every trace a query ran on, with the time it took."""

        @abc.abstractmethod
        def trace_processed(self, metadata: Dict[str, str], execution_time_seconds: float):
            raise NotImplementedError

    def __init__(self, traces, config=None, observer=None):
        self.config = config or BatchTraceProcessorConfig()
        self.observer = observer
        self.closed = False
        self._stats = Stats()
        self.failures = []
        self._tps, self.names, self.metadata = [], [], []
        tp_config = self.config.tp_config
        self.resolver_registry = tp_config.resolver_registry or default_registry()
        try:
            resolved = self.resolver_registry.resolve(traces)
        except ValueError as e:
            raise TraceProcessorException(str(e)) from None
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=self.config.max_workers or _cores())
        from .trace_processor import TraceProcessor
        futures = [self._pool.submit(TraceProcessor, trace=r.trace, config=tp_config,
                                     metadata=r.metadata) for r in resolved]
        error = None
        for i, (r, future) in enumerate(zip(resolved, futures)):
            label = _label(r.trace, r.metadata, i)
            try:
                tp = future.result()
            except TraceProcessorException as e:
                self._stats.load_failures += 1
                self.failures.append((label, str(e)))
                error = error or e
                continue
            self._tps.append(tp)
            self.names.append(label)
            self.metadata.append(r.metadata)
        if error is not None:
            if self.config.load_failure_handling == FailureHandling.RAISE_EXCEPTION:
                self.close()
                raise error
            warnings.warn("trak: %d of %d traces failed to load (see .failures): %s" % (
                len(self.failures), len(resolved), self.failures[0][1]), RuntimeWarning, 2)

    @property
    def processors(self):
        """The TraceProcessor of each loaded trace, in the order of `names`."""
        return list(self._tps)

    def stats(self):
        """Stats(load_failures, execute_failures) counted so far."""
        return self._stats

    def _call(self, fn, index, empty):
        """fn(tp) of trace `index`, with execute_failure_handling; `empty()` stands for the
        result of a failed trace under INCREMENT_STAT."""
        start = time.monotonic()
        try:
            out = fn(self._tps[index])
        except TraceProcessorException as e:
            if self.config.execute_failure_handling == FailureHandling.RAISE_EXCEPTION:
                raise TraceProcessorException("%s: %s" % (self.names[index], e)) from None
            self._stats.execute_failures += 1
            self.failures.append((self.names[index], str(e)))
            out = empty()
        if self.observer:
            self.observer.trace_processed(self.metadata[index], time.monotonic() - start)
        return out

    def execute(self, fn: Callable[[Any], Any]) -> List[Any]:
        """fn(tp) for every loaded trace, in parallel; the results in the order of `names`.
        A TraceProcessorException of fn follows execute_failure_handling (under
        INCREMENT_STAT the trace's result is an empty DataFrame, as Perfetto's)."""
        def empty():
            import pandas as pd
            return pd.DataFrame()
        return list(self._pool.map(lambda i: self._call(fn, i, empty), range(len(self._tps))))

    def execute_and_flatten(self, fn):
        """fn(tp) -> DataFrame for every trace, concatenated: a first column `trace` names the
        trace of each row and the resolver's metadata (`_path` for files) become columns."""
        import pandas as pd
        frames = self.execute(fn)
        for name, meta, df in zip(self.names, self.metadata, frames):
            df.insert(0, "trace", name)
            for key, value in meta.items():
                df[key] = value
        if not frames:
            return pd.DataFrame({"trace": []})
        return pd.concat(frames, ignore_index=True)

    def query(self, sql):
        """One pandas DataFrame per loaded trace, in the order of `names`."""
        return self.execute(lambda tp: tp.query(sql).as_pandas_dataframe())

    def query_and_flatten(self, sql):
        """One DataFrame of every loaded trace's rows (see execute_and_flatten)."""
        return self.execute_and_flatten(lambda tp: tp.query(sql).as_pandas_dataframe())

    def query_single_result(self, sql):
        """The one value (one row, one column) the SQL gives on each trace, in the order of
        `names`; any other shape raises TraceProcessorException."""
        def single(tp):
            result = tp.query(sql)
            if len(result) != 1:
                raise TraceProcessorException("Query should only return a single row "
                                              "(it returned %d)" % len(result))
            if len(result.column_names) != 1:
                raise TraceProcessorException("Query should only return a single column "
                                              "(it returned %d)" % len(result.column_names))
            return next(iter(result))[0]
        return self.execute(single)

    def query_polars(self, sql):
        return self.execute(lambda tp: tp.query(sql).as_polars_dataframe())

    def query_and_flatten_polars(self, sql):
        import polars as pl
        return pl.from_pandas(self.query_and_flatten(sql))

    def metric(self, metrics, params=None):
        """tp.metric(metrics, params) of every loaded trace, in the order of `names`."""
        return self.execute(lambda tp: tp.metric(metrics, params))

    def close(self):
        """Frees every trace's tables. Calling it again does nothing."""
        if self.closed:
            return
        self.closed = True
        for tp in self._tps:
            tp.close()
        self._pool.shutdown(wait=True)

    def _open(self):
        return not self.closed and hasattr(self, "_pool")
