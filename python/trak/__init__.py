"""trak: the trace processor from Python. See docs/python.md.

    import trak
    with trak.TraceProcessor(trace="app.pftrace") as tp:
        print(tp.query("select count(*) as n from slice").as_pandas_dataframe())
"""
from .trace_processor import (BatchTraceProcessor, BatchTraceProcessorConfig,  # noqa: F401
                              FailureHandling, QueryResultIterator, Row, TraceProcessor,
                              TraceProcessorConfig, TraceProcessorException, builtin_metrics)

__version__ = "0.1.0"
