"""TraceProcessor on systrace text (tracefs' `trace` file format): recognised from its bytes
whether given as a path, bytes, a file object read in small pieces or gzipped, and read into the
scheduling tables, as `trak query` reads it."""
import gzip
import io
import os

from trak.trace_processor import TraceProcessor, TraceProcessorConfig

from conftest import SOURCE_DIR

TRACE = os.path.join(SOURCE_DIR, "tests", "data", "systrace", "sched_blocked_systrace.systrace")

# Perfetto's diff test parser/parsing test_sched_blocked_systrace_sched_blocked_reason.
BLOCKED = [(20258854000, 269, 0), (21123838000, 2172, 1)]


def blocked(tp):
    return [(r.ts, r.tid, r.io_wait) for r in tp.query(
        "select ts, tid, io_wait from thread_state join thread using (utid) "
        "where state = 'D' order by ts")]


def test_systrace_from_path():
    with TraceProcessor(trace=TRACE) as tp:
        assert blocked(tp) == BLOCKED
        kind = tp.query("select str_value from metadata where name = 'trace_type'")
        assert [r.str_value for r in kind] == ["systrace"]


def test_systrace_from_bytes_chunks_and_gzip():
    data = open(TRACE, "rb").read()
    for trace, config in ((data, None), (gzip.compress(data), None),
                          (io.BytesIO(data), TraceProcessorConfig(chunk_size=7))):
        with TraceProcessor(trace=trace, config=config) as tp:
            assert blocked(tp) == BLOCKED


def test_systrace_sched_rows():
    with TraceProcessor(trace=TRACE) as tp:
        rows = [(r.ts, r.cpu, r.tid) for r in tp.query(
            "select ts, cpu, tid from sched join thread using (utid) order by ts")]
        assert rows[0] == (10258854000, 6, 269)
        assert len(rows) == 4
