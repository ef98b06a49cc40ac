"""Fleets of traces on Dask: the same SQL over thousands of traces, one partition per trace.

    import trak.dask
    df = trak.dask.query(["path:runs/*/trace.pftrace"], "select dur from slice")
    df.groupby("trace")["dur"].max().compute()

Each partition is computed by a task that loads its trace with trak in-process where the task
runs (a dask.distributed worker, or a thread of Dask's local scheduler) and returns only the
result rows; traces never travel. A trace that fails (not a trace, missing, lost data, SQL
error, too big for the worker's memory) is left out of the rows and listed by failures().
See docs/python.md.
"""
import dataclasses
import os
import struct
from typing import List, Optional

import dask
import dask.dataframe as dd
import pandas as pd

from ._config import TraceProcessorConfig
from ._result import TraceProcessorException
from .trace_uri_resolver import PathUriResolver, default_registry

__all__ = ["query", "failures", "traces_of", "MEMORY_PER_TRACE_BYTE"]

# Memory an import needs per byte of (uncompressed) trace, rounded up from docs/performance.md:
# a binary trace of 2 M events peaks at 96.8 MB; a text one needs less per byte.
MEMORY_PER_TRACE_BYTE = 2.0


def traces_of(traces, config=None) -> List[str]:
    """The trace names a fleet query gets one partition each for: each path or URI of `traces`
    (a str, os.PathLike, or a list of them); globs and `path:` URIs are expanded here, on the
    client (the workers must see the same files); other URIs are resolved on the workers."""
    registry = (config.resolver_registry if config else None) or default_registry()
    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    names = []
    for t in traces:
        if not isinstance(t, (str, os.PathLike)):
            raise TypeError("trak.dask names traces by path or URI, not %s" % type(t).__name__)
        t = os.fspath(t)
        try:
            resolver = registry.resolver_for(t)
        except ValueError as e:
            raise TraceProcessorException(str(e)) from None
        names.extend(resolver.paths() if isinstance(resolver, PathUriResolver) else [t])
    return names


def _trace_bytes(path):
    """The uncompressed size of a trace file (a gzip's from its trailer), or None."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            if f.read(2) == b"\x1f\x8b" and size >= 18:
                f.seek(-4, os.SEEK_END)
                # ISIZE is the size mod 2^32: never below the compressed size for traces
                return max(struct.unpack("<I", f.read(4))[0], size)
        return size
    except OSError:
        return None


def _memory_limit():
    """This worker's memory limit (dask.distributed), else the machine's memory."""
    try:
        from distributed import get_worker
        worker = get_worker()
        manager = getattr(worker, "memory_manager", worker)
        limit = manager.memory_limit
        if limit:
            return int(limit)
    except (ImportError, ValueError):
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _mb(n):
    return "%.1f MB" % (n / 1e6)


def _run(name, sql, config, memory_limit, meta):
    """(rows, error) of one trace: its result as a DataFrame with `trace` first and the
    columns of `meta` (None: as they come), or None and the error message."""
    from .trace_processor import TraceProcessor
    limit = memory_limit or _memory_limit()
    try:
        size = _trace_bytes(name)
        if size is not None and size * MEMORY_PER_TRACE_BYTE > limit:
            raise TraceProcessorException(
                "%s: too large for this worker: %s of trace needs about %s of memory, over the "
                "limit of %s" % (name, _mb(size), _mb(size * MEMORY_PER_TRACE_BYTE), _mb(limit)))
        with TraceProcessor(trace=name, config=config) as tp:
            df = tp.query(sql).as_pandas_dataframe()
        df.insert(0, "trace", name)
        return (_conform(df, meta, name) if meta is not None else df), None
    except (TraceProcessorException, OSError) as e:
        return None, str(e)


def _conform(df, meta, name):
    """df with meta's columns and dtypes (a trace may give int64 where another gives Int64,
    or object for a column of NULLs only). Raises for a shape that cannot fit."""
    if list(df.columns) != list(meta.columns):
        raise TraceProcessorException("%s: the query gives columns %s here but %s on the "
                                      "first trace" % (name, list(df.columns), list(meta.columns)))
    try:
        return df.astype(meta.dtypes.to_dict(), copy=False)
    except (TypeError, ValueError) as e:
        raise TraceProcessorException("%s: a column's values do not fit the type it has on the "
                                      "first trace: %s" % (name, e)) from None


def _probe(names, sql, config, memory_limit):
    """The columns and dtypes (an empty frame) of the first trace the SQL runs on; integer
    columns become nullable Int64 so that traces with NULLs there fit. None if none runs."""
    for name in names:
        df, _ = _run(name, sql, config, memory_limit, None)
        if df is not None:
            meta = df.iloc[:0].copy()
            for col, dtype in meta.dtypes.items():
                if dtype == "int64":
                    meta[col] = meta[col].astype("Int64")
            return meta
    return None


def _rows(result, meta):
    df, _ = result
    return df if df is not None else meta


def _error_rows(result, name):
    _, error = result
    return pd.DataFrame({"trace": [name] if error else [], "error": [error] if error else []},
                        dtype=object)


@dataclasses.dataclass
class _Plan:
    """The trace names, their tasks ((rows, error) each) and the rows' columns."""
    names: List[str]
    runs: list
    meta: pd.DataFrame


_FAILURE_META = pd.DataFrame({"trace": [], "error": []}, dtype=object)


def _plan(traces, sql, config, memory_limit, meta):
    config = config or TraceProcessorConfig(strict=True)
    names = traces_of(traces, config)
    if meta is None:
        meta = dask.delayed(_probe, pure=True)(names, sql, config, memory_limit).compute()
        if meta is None:
            meta = pd.DataFrame({"trace": []}, dtype=object)
    key = dask.base.tokenize(sql, repr(config), memory_limit, meta)
    runs = [dask.delayed(_run, pure=True)(
        name, sql, config, memory_limit, meta, dask_key_name="trak-run-%s-%d" % (key, i))
        for i, name in enumerate(names)]
    return _Plan(names, runs, meta)


def query(traces, sql: str, config: Optional[TraceProcessorConfig] = None,
          memory_limit: Optional[int] = None, meta: Optional[pd.DataFrame] = None):
    """A lazy dask.dataframe.DataFrame of the SQL's rows on every trace: one partition per
    trace, with a first column `trace` naming it. Traces that fail are left out (see
    failures()). `traces`: paths or URIs (see traces_of); `config`: each trace's
    TraceProcessorConfig (default: strict=True, so that a trace that lost data is a failure,
    as `trak query` exits 1 on it); `memory_limit`: bytes a trace may need (default: the worker's
    memory limit); `meta`: the result's columns as an empty DataFrame (with `trace`); by
    default one trace is queried now, on a worker, to learn them.

    Computed with the current dask.distributed Client if there is one, else Dask's local
    scheduler. dask.compute(query(t, sql), failures(t, sql)) loads each trace once."""
    plan = _plan(traces, sql, config, memory_limit, meta)
    parts = [dask.delayed(_rows, pure=True)(run, plan.meta) for run in plan.runs]
    if not parts:
        return dd.from_pandas(plan.meta, npartitions=1)
    return dd.from_delayed(parts, meta=plan.meta, verify_meta=False)


def failures(traces, sql: str, config: Optional[TraceProcessorConfig] = None,
             memory_limit: Optional[int] = None, meta: Optional[pd.DataFrame] = None):
    """A lazy dask.dataframe.DataFrame of the traces query() leaves out: columns `trace` and
    `error` (the message, as `trak query` gives it). Same arguments as query()."""
    plan = _plan(traces, sql, config, memory_limit, meta)
    parts = [dask.delayed(_error_rows, pure=True)(run, name)
             for run, name in zip(plan.runs, plan.names)]
    if not parts:
        return dd.from_pandas(_FAILURE_META, npartitions=1)
    return dd.from_delayed(parts, meta=_FAILURE_META, verify_meta=False)
