"""PerfettoSQL through the Python TraceProcessor: modules, functions and macros work as in
`trak query`, since both go through trak_query_open (answers as in tests/test_perfetto_modules.c,
checked against Perfetto's trace_processor_shell)."""
import os

import pytest

from conftest import SOURCE_DIR
from trak.trace_processor import TraceProcessor, TraceProcessorException

MODULES_TRACE = os.path.join(SOURCE_DIR, "tests", "data", "psql", "modules.json")


def test_include_and_thread_slice():
    with TraceProcessor(trace=MODULES_TRACE) as tp:
        df = tp.query("INCLUDE PERFETTO MODULE slices.with_context; "
                      "SELECT name, thread_name, process_name FROM thread_slice "
                      "WHERE name = 'measure'").as_pandas_dataframe()
        assert df.to_dict("records") == [
            {"name": "measure", "thread_name": "main", "process_name": "browser"}]


def test_functions_macros_and_prelude():
    with TraceProcessor(trace=MODULES_TRACE) as tp:
        tp.query("CREATE PERFETTO FUNCTION twice(x INT) RETURNS INT AS SELECT $x * 2")
        tp.query("CREATE PERFETTO MACRO plus_one(e Expr) RETURNS Expr AS ($e) + 1")
        row = next(iter(tp.query("SELECT twice(21) AS a, plus_one!(twice(2)) AS b, "
                                 "trace_end() AS e FROM trace_bounds")))
        assert (row.a, row.b, row.e) == (42, 5, 250000)


def test_errors_name_the_module():
    with TraceProcessor(trace=MODULES_TRACE) as tp:
        with pytest.raises(TraceProcessorException, match="unknown module 'no.such'"):
            tp.query("INCLUDE PERFETTO MODULE no.such")
