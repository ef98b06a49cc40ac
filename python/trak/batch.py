"""BatchTraceProcessor: the same SQL over many traces, loaded and queried on every core.

Each trace gets its own TraceProcessor; a pool of threads loads and queries them, and since the
C library runs with Python's lock released, the threads use all cores. A trace that fails to
load is reported (in `failures`, and as a warning), not fatal for the batch.
"""
import concurrent.futures
import dataclasses
import os
import warnings
from typing import Optional

from .trace_processor import TraceProcessor, TraceProcessorConfig, TraceProcessorException


@dataclasses.dataclass
class BatchTraceProcessorConfig:
    """tp_config: the TraceProcessorConfig of every trace. max_workers: threads (default: the
    cores this process may use). fail_on_load_error: raise instead of reporting."""
    tp_config: TraceProcessorConfig = dataclasses.field(default_factory=TraceProcessorConfig)
    max_workers: Optional[int] = None
    fail_on_load_error: bool = False


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class BatchTraceProcessor:
    """Loads `traces` (each a path, bytes, file object or iterator of chunks, as for
    TraceProcessor) in parallel.

    names: one name per loaded trace ("trace" column of query_and_flatten): the path, else
        "trace <index>". failures: [(name, message)] for the traces that failed to load.
    """

    def __init__(self, traces, config=None):
        self.config = config or BatchTraceProcessorConfig()
        traces = list(traces)
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=self.config.max_workers or _cores())
        labels = [os.fspath(t) if isinstance(t, (str, os.PathLike)) else "trace %d" % i
                  for i, t in enumerate(traces)]
        futures = [self._pool.submit(TraceProcessor, trace=t, config=self.config.tp_config)
                   for t in traces]
        self.names, self.failures, self._tps = [], [], []
        for label, future in zip(labels, futures):
            try:
                self._tps.append(future.result())
                self.names.append(label)
            except TraceProcessorException as e:
                self.failures.append((label, str(e)))
        if self.failures:
            if self.config.fail_on_load_error:
                self.close()
                raise TraceProcessorException("%d of %d traces failed to load: %s" % (
                    len(self.failures), len(traces), "; ".join(m for _, m in self.failures)))
            warnings.warn("trak: %d of %d traces failed to load (see .failures): %s" % (
                len(self.failures), len(traces), self.failures[0][1]), RuntimeWarning, 2)

    @property
    def processors(self):
        """The TraceProcessor of each loaded trace, in the order of `names`."""
        return list(self._tps)

    def execute(self, fn):
        """Calls fn(tp) for every loaded trace in parallel; returns the results in order."""
        return list(self._pool.map(fn, self._tps))

    def query(self, sql):
        """One pandas DataFrame per loaded trace, in the order of `names`."""
        def run(name, tp):
            try:
                return tp.query(sql).as_pandas_dataframe()
            except TraceProcessorException as e:
                raise TraceProcessorException("%s: %s" % (name, e)) from None
        return list(self._pool.map(run, self.names, self._tps))

    def query_and_flatten(self, sql):
        """One DataFrame of every loaded trace's rows, with a first column `trace` naming the
        trace each row comes from."""
        import pandas as pd
        frames = self.query(sql)
        for name, df in zip(self.names, frames):
            df.insert(0, "trace", name)
        if not frames:
            return pd.DataFrame({"trace": []})
        return pd.concat(frames, ignore_index=True)

    def metric(self, metrics, params=None):
        """tp.metric(metrics, params) of every loaded trace, in the order of `names`."""
        return self.execute(lambda tp: tp.metric(metrics, params))

    def close(self):
        for tp in self._tps:
            tp.close()
        self._pool.shutdown(wait=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
