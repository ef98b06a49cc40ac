"""Query results: fetched whole, column by column, through trak_query_fetch_columns.

A result keeps each column as the raw batches the C library hands over (typed arrays, a null
mask, strings as codes into the column's dictionary), so that a dataframe is made with a few
numpy operations per column, never a Python step per value; iterating rows turns a column
into a Python list once. numpy and pandas are imported only by as_pandas_dataframe().
"""
import ctypes

from . import _lib


class TraceProcessorException(Exception):
    """An error of the trace processor (a trace that does not load, a SQL error, ...), with
    trak's message."""
    __module__ = "trak.trace_processor"  # where users import it from


class Row:
    """One row of a result: its values by column name as attributes (row.ts), or by position
    (row[0])."""
    __slots__ = ("_values", "_index")

    def __init__(self, values, index):
        self._values = values
        self._index = index

    def __getattr__(self, name):
        try:
            return self._values[self._index[name]]
        except KeyError:
            raise AttributeError("no column %r in this result" % name) from None

    def __getitem__(self, i):
        return self._values[i]

    def __len__(self):
        return len(self._values)

    def __eq__(self, other):
        return isinstance(other, Row) and self._values == other._values

    def _asdict(self):
        return {name: self._values[i] for name, i in self._index.items()}

    def __repr__(self):
        return "Row(%s)" % ", ".join("%s=%r" % kv for kv in self._asdict().items())


class _Batch:
    __slots__ = ("type", "n", "nulls", "values")

    def __init__(self, type_, n, nulls, values):
        self.type, self.n, self.nulls, self.values = type_, n, nulls, values


class _Column:
    """One result column: its batches and its string dictionary (codes index `strings`)."""
    __slots__ = ("batches", "strings")

    def __init__(self):
        self.batches = []
        self.strings = []


def _new_strings(c):
    """The strings a batch adds to its column's dictionary, decoded."""
    n = c.n_new_strings
    if not n:
        return []
    offsets = ctypes.cast(c.new_offsets, ctypes.POINTER(ctypes.c_uint64))
    raw = ctypes.string_at(c.new_strings, offsets[n])
    if not c.new_strings_have_nul:
        return raw.decode("utf-8", "replace").split("\0")[:-1]
    return [raw[offsets[k]:offsets[k + 1] - 1].decode("utf-8", "replace") for k in range(n)]


_SIZES = {_lib.TRAK_VALUE_INT: ("ints", 8), _lib.TRAK_VALUE_DOUBLE: ("doubles", 8),
          _lib.TRAK_VALUE_STRING: ("codes", 4)}


def fetch(lib, query, batch_rows=0):
    """Fetches every row of an open trak_query. Returns (column names, columns, row count);
    raises TraceProcessorException on a SQL error."""
    ncols = lib.trak_query_column_count(query)
    names = [lib.trak_query_column_name(query, i).decode("utf-8", "replace")
             for i in range(ncols)]
    columns = [_Column() for _ in range(ncols)]
    batch = (_lib.ColumnBatch * max(ncols, 1))()
    err = _lib.Error()
    total = 0
    while True:
        n = lib.trak_query_fetch_columns(query, batch_rows, batch, ctypes.byref(err))
        if n < 0:
            raise TraceProcessorException(err.text())
        if n == 0:
            return names, columns, total
        total += n
        for c, col in zip(batch, columns):
            values = None
            if c.type in _SIZES:
                field, size = _SIZES[c.type]
                values = ctypes.string_at(getattr(c, field), size * n)
            if c.type == _lib.TRAK_VALUE_STRING:
                col.strings.extend(_new_strings(c))
            col.batches.append(_Batch(c.type, n, ctypes.string_at(c.nulls, n), values))


def _batch_list(b, strings):
    """A batch's values as a Python list (None for NULL)."""
    if b.type == _lib.TRAK_VALUE_NULL:
        return [None] * b.n
    if b.type == _lib.TRAK_VALUE_STRING:
        table = strings + [None]  # code -1 (NULL) picks the last entry
        return list(map(table.__getitem__, memoryview(b.values).cast("i")))
    values = memoryview(b.values).cast("q" if b.type == _lib.TRAK_VALUE_INT else "d").tolist()
    if b"\x01" in b.nulls:
        values = [None if null else v for v, null in zip(values, b.nulls)]
    return values


def column_list(col):
    """The whole column as a Python list. In a column where some batch holds strings, the
    numbers of the other batches become strings too (as the C library does within a batch)."""
    as_text = any(b.type == _lib.TRAK_VALUE_STRING for b in col.batches)
    out = []
    for b in col.batches:
        values = _batch_list(b, col.strings)
        if as_text and b.type in (_lib.TRAK_VALUE_INT, _lib.TRAK_VALUE_DOUBLE):
            values = [None if v is None else str(v) for v in values]
        out.extend(values)
    return out


def column_array(col, np, pd):
    """The whole column as a numpy array or pandas extension array: int64 (Int64 when a NULL
    occurs), float64 (NaN for NULL), object for strings (None for NULL) and for columns that
    mix strings with numbers or hold only NULLs."""
    kinds = {b.type for b in col.batches} - {_lib.TRAK_VALUE_NULL}
    n = sum(b.n for b in col.batches)
    mask = np.frombuffer(b"".join(b.nulls for b in col.batches), dtype=np.bool_)

    def numbers(dtype):
        parts = [np.frombuffer(b.values, dtype=np.int64 if b.type == _lib.TRAK_VALUE_INT
                               else np.float64).astype(dtype, copy=False)
                 if b.values is not None else np.zeros(b.n, dtype) for b in col.batches]
        return np.concatenate(parts) if parts else np.zeros(0, dtype)

    if kinds == {_lib.TRAK_VALUE_INT}:
        values = numbers(np.int64)
        return pd.arrays.IntegerArray(values, mask.copy()) if mask.any() else values
    if kinds == {_lib.TRAK_VALUE_DOUBLE} or kinds == {_lib.TRAK_VALUE_INT, _lib.TRAK_VALUE_DOUBLE}:
        values = numbers(np.float64)
        values[mask] = np.nan
        return values
    if kinds == {_lib.TRAK_VALUE_STRING}:
        table = np.empty(len(col.strings) + 1, dtype=object)
        table[:-1] = col.strings
        table[-1] = None  # code -1 (NULL)
        codes = np.concatenate([np.frombuffer(b.values, dtype=np.int32) if b.values is not None
                                else np.full(b.n, -1, np.int32) for b in col.batches])
        return table.take(codes)
    if not kinds:
        return np.full(n, None, dtype=object)
    out = np.empty(n, dtype=object)  # strings mixed with numbers
    out[:] = column_list(col)
    return out


class QueryResultIterator:
    """The result of TraceProcessor.query: iterate it for rows (row.ts, row.name), or turn it
    into a pandas DataFrame with as_pandas_dataframe(). The rows are fetched when the query
    runs, so SQL errors raise from query() itself."""

    def __init__(self, names, columns, n_rows):
        self.column_names = names
        self._columns = columns
        self._n = n_rows
        self._cursor = None  # next(): the rows not yet returned

    Row = Row

    def __len__(self):
        return self._n

    def __iter__(self):
        index = {}
        for i, name in enumerate(self.column_names):
            index.setdefault(name, i)  # a repeated name means its first column
        lists = [column_list(c) for c in self._columns]
        return (Row(values, index) for values in zip(*lists)) if lists else iter(())

    def __next__(self):
        """The next row, as Perfetto's iterator gives it (`next(tp.query(sql))`); iterating
        with `for` starts from the first row each time."""
        if self._cursor is None:
            self._cursor = iter(self)
        return next(self._cursor)

    def as_polars_dataframe(self):
        """A polars DataFrame of the result (polars is optional: without it, raises)."""
        try:
            import polars as pl
        except ImportError:
            raise TraceProcessorException(
                "polars is not installed; as_pandas_dataframe() needs only pandas") from None
        return pl.from_pandas(self.as_pandas_dataframe())

    def as_pandas_dataframe(self):
        import numpy as np
        import pandas as pd
        arrays = {i: column_array(c, np, pd) for i, c in enumerate(self._columns)}
        df = pd.DataFrame(arrays, copy=False) if arrays else pd.DataFrame(index=range(self._n))
        df.columns = self.column_names
        return df
