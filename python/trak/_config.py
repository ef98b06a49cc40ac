"""TraceProcessorConfig: Perfetto's configuration fields (same names, order and defaults) and
trak's own. Fields that only steer Perfetto's trace_processor_shell subprocess have no meaning
in-process: a value other than the default is accepted with a one-line warning."""
import dataclasses
import warnings
from typing import Dict, List, Optional, Sequence

# Perfetto's fields that configure its subprocess, with their defaults.
_SUBPROCESS_FIELDS = {
    "bin_path": None,
    "unique_port": True,
    "verbose": False,
    "ingest_ftrace_in_raw": False,
    "enable_dev_features": False,
    "load_timeout": 30,
    "extra_flags": None,
    "add_sql_packages": None,
    "fetch_latest_trace_processor": False,
    "enable_sql_file_access": False,
}


@dataclasses.dataclass
class TraceProcessorConfig:
    """Options of a TraceProcessor.

    Perfetto's fields, in Perfetto's order: bin_path, unique_port, verbose,
    ingest_ftrace_in_raw, enable_dev_features, resolver_registry, load_timeout, extra_flags,
    add_sql_packages, fetch_latest_trace_processor, enable_sql_file_access. trak runs in-process,
    so all but resolver_registry (how trace URIs resolve; see trak.trace_uri_resolver) are
    ignored, with a warning when set.

    trak's fields:
    library: path of libtrak_processor.so (default: TRAK_LIBRARY, the installed copy, the
        build it was installed from, the system loader).
    descriptions: files of slice description rules (docs/analysis.md), loaded after the trace.
    metrics_dir: a directory of NAME.sql metrics, looked up before the built-in ones.
    metric_params: values for {{key}} in metrics ({"threshold_ns": 1000000}).
    chunk_size: bytes read at a time from a file object.
    strict: a trace whose import lost data (malformed or truncated bytes, a limit hit) raises
        TraceProcessorException instead of warning.
    """
    bin_path: Optional[str] = None
    unique_port: bool = True
    verbose: bool = False
    ingest_ftrace_in_raw: bool = False
    enable_dev_features: bool = False
    resolver_registry: Optional[object] = None
    load_timeout: int = 30
    extra_flags: Optional[List[str]] = None
    add_sql_packages: Optional[List[object]] = None
    fetch_latest_trace_processor: bool = False
    enable_sql_file_access: bool = False
    library: Optional[str] = None
    descriptions: Sequence[str] = ()
    metrics_dir: Optional[str] = None
    metric_params: Optional[Dict[str, object]] = None
    chunk_size: int = 1 << 20
    strict: bool = False

    def __post_init__(self):
        for name, default in _SUBPROCESS_FIELDS.items():
            if getattr(self, name) != default:
                warnings.warn("trak: TraceProcessorConfig(%s=...) is ignored: trak runs "
                              "in-process, without Perfetto's trace_processor_shell" % name,
                              RuntimeWarning, 3)
