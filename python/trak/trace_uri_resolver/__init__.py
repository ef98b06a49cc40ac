"""Trace URIs as Perfetto's `perfetto.trace_uri_resolver`: a string `NAME:key=value;key=a,b`
names traces through the resolver registered under NAME; a plain path (or `path:PATH`, or a
glob such as `traces/*.pftrace`) names files. See docs/python.md#trace-uris."""
from .path import PathUriResolver  # noqa: F401
from .registry import ResolverRegistry, default_registry  # noqa: F401
from .resolver import ConstraintClass, TraceUriResolver  # noqa: F401
