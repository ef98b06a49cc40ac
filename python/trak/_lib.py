"""Finding and loading libtrak_processor, and the ctypes declarations of the C API used here.

The library is looked for, in order: the TRAK_LIBRARY environment variable; a copy installed
inside this package; the path recorded when the package was built (trak/_build.py); the system
loader (libtrak_processor.so on the library path). ctypes releases Python's lock around every
foreign call, so imports and queries of different processors run on all cores.
"""
import ctypes
import ctypes.util
import os

from . import _build

TRAK_VALUE_NULL, TRAK_VALUE_INT, TRAK_VALUE_DOUBLE, TRAK_VALUE_STRING = 0, 1, 2, 3
LIBRARY_NAME = "libtrak_processor.so"


class Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 512)]

    def text(self):
        return self.message.decode("utf-8", "replace")


class ColumnBatch(ctypes.Structure):
    """trak_column_batch of include/trak/processor.h."""
    _fields_ = [
        ("type", ctypes.c_int),
        ("nulls", ctypes.c_void_p),
        ("ints", ctypes.c_void_p),
        ("doubles", ctypes.c_void_p),
        ("codes", ctypes.c_void_p),
        ("new_strings", ctypes.c_void_p),
        ("new_offsets", ctypes.c_void_p),
        ("n_new_strings", ctypes.c_uint32),
        ("new_strings_have_nul", ctypes.c_int),
    ]


DIAG_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int,
                           ctypes.c_char_p, ctypes.c_char_p)


class ProcessorOptions(ctypes.Structure):
    """trak_processor_options of include/trak/processor.h (no progress callback here)."""
    _fields_ = [("diag", DIAG_FN), ("progress", ctypes.c_void_p), ("user", ctypes.c_void_p),
                ("flags", ctypes.c_uint)]


class MetricsOptions(ctypes.Structure):
    _fields_ = [
        ("metrics_dir", ctypes.c_char_p),
        ("params", ctypes.POINTER(ctypes.c_char_p)),
        ("n_params", ctypes.c_size_t),
    ]


def candidates(explicit=None):
    """The paths tried, in order (explicit first: TraceProcessorConfig(library=...))."""
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [explicit, os.environ.get("TRAK_LIBRARY"), os.path.join(here, LIBRARY_NAME),
             _build.LIBRARY]
    return [p for p in paths if p]


def _declare(lib):
    vp, cp, sz, i64 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int64
    err = ctypes.POINTER(Error)
    protos = {
        "trak_processor_new": (ctypes.c_int, [ctypes.POINTER(ProcessorOptions),
                                               ctypes.POINTER(vp), err]),
        "trak_processor_feed": (ctypes.c_int, [vp, cp, sz, err]),
        "trak_processor_finish": (ctypes.c_int, [vp, err]),
        "trak_processor_open_file": (ctypes.c_int, [cp, ctypes.POINTER(ProcessorOptions),
                                                     ctypes.POINTER(vp), err]),
        "trak_processor_byte_count": (ctypes.c_uint64, [vp]),
        "trak_processor_free": (None, [vp]),
        "trak_processor_event_count": (ctypes.c_uint64, [vp]),
        "trak_query_open": (ctypes.c_int, [vp, vp, ctypes.POINTER(vp), ctypes.POINTER(vp), err]),
        "trak_query_column_count": (ctypes.c_int, [vp]),
        "trak_query_column_name": (cp, [vp, ctypes.c_int]),
        "trak_query_fetch_columns": (i64, [vp, sz, ctypes.POINTER(ColumnBatch), err]),
        "trak_query_free": (None, [vp]),
        "trak_processor_exec": (ctypes.c_int, [vp, cp, err]),
        "trak_processor_add_descriptions": (ctypes.c_int, [vp, cp, sz, cp, err]),
        "trak_processor_load_descriptions": (ctypes.c_int, [vp, cp, err]),
        "trak_processor_describe_slice": (ctypes.c_int, [vp, i64, ctypes.POINTER(cp),
                                                         ctypes.POINTER(cp)]),
        "trak_processor_compute_metrics": (ctypes.c_int, [vp, ctypes.POINTER(cp), sz,
                                                          ctypes.POINTER(MetricsOptions), err]),
        "trak_processor_metric_output": (ctypes.c_int, [vp, cp, ctypes.POINTER(vp), err]),
        "trak_metric_builtin_name": (cp, [sz]),
        "trak_processor_export": (ctypes.c_int, [vp, cp, err]),
    }
    for name, (res, args) in protos.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


_loaded = {}


def load(explicit=None):
    """The loaded library (once per path). Raises OSError naming every path tried."""
    if explicit and not os.path.exists(explicit):
        raise OSError("trak: library %s not found" % explicit)
    tried = []
    for path in candidates(explicit):
        if path in _loaded:
            return _loaded[path]
        if not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        _loaded[path] = _declare(ctypes.CDLL(path))
        return _loaded[path]
    found = ctypes.util.find_library("trak_processor")
    if found:
        _loaded.setdefault(found, _declare(ctypes.CDLL(found)))
        return _loaded[found]
    raise OSError("trak: cannot find libtrak_processor.so; tried " + ", ".join(tried + [
        "the system loader"]) + ". Set TRAK_LIBRARY to the library built by `make`.")
