"""Loading one trace into a processor with the command line's rules for bad input
(src/cli/trace_open.c): nothing readable is "not a trace" (TraceProcessorException, worded as
`trak query` words it); malformed or truncated bytes and limits hit after valid packets lose
data, which is a warning, or an exception with TraceProcessorConfig(strict=True)."""
import ctypes
import os
import warnings

from . import _lib
from ._result import TraceProcessorException

EXPECTED = ("expected a Perfetto trace (binary or text protobuf, gzip or not) or a JSON trace")
MAX_LINES = 5

# The stats that mean the input was malformed or cut by a limit: damages_input() of
# src/cli/trace_open.c, which makes `trak query` print an error line and exit 1.
DAMAGE_STATS = frozenset([
    "trace_truncated", "trace_corrupt", "packet_malformed", "text_parse_error",
    "compressed_packets_errors", "compressed_packets_unsupported", "json_tokenizer_failure",
    "packet_too_large", "compressed_packets_too_deep", "compressed_packets_inflate_limit",
    "json_event_too_large", "json_nesting_too_deep", "debug_annotation_too_deep",
    "arg_key_too_long"])
# Of them, malformed bytes (not limits): before any packet they make the input "not a trace".
MALFORMED_STATS = frozenset(["trace_truncated", "trace_corrupt", "packet_malformed",
                             "compressed_packets_errors", "text_parse_error"])


class Diagnostics:
    """The problems of one import, as the command line collects them."""

    def __init__(self):
        self.count = 0          # problems that damaged the input
        self.lines = []         # the first MAX_LINES of them, with packet and byte
        self.first = None       # the first malformed problem's message, up to its first ';'
        self.first_packet = None
        self.callback = _lib.DIAG_FN(self._diag)  # kept alive as long as the import

    def _diag(self, _user, packet, offset, _severity, stat, message):
        stat = stat.decode("utf-8", "replace")
        if stat not in DAMAGE_STATS:
            return
        message = message.decode("utf-8", "replace")
        malformed = stat in MALFORMED_STATS or (stat == "json_tokenizer_failure" and
                                                message.startswith("JSON syntax"))
        if malformed and self.first is None:
            self.first, self.first_packet = message.split(";", 1)[0], packet
        self.count += 1
        if len(self.lines) < MAX_LINES:
            where = ("(packet %d)" % packet if "byte" in message else
                     "(packet %d at byte %d)" % (packet, offset))
            self.lines.append("%s %s" % (message, where))

    def check(self, lib, p, name, strict):
        """Raises for input that is not a trace; warns (or, strict, raises) for lost data."""
        if not lib.trak_processor_event_count(p):
            if self.first is not None and self.first_packet == 0:
                raise TraceProcessorException("%s: not a trace (%s); %s" % (name, self.first,
                                                                              EXPECTED))
            warnings.warn("trak: %s: empty trace: no events" % name, RuntimeWarning, 4)
        if not self.count:
            return
        text = "%s: %d problem%s lost data: %s%s (see the stats table)" % (
            name, self.count, "" if self.count == 1 else "s", "; ".join(self.lines),
            "; ..." if self.count > len(self.lines) else "")
        if strict:
            raise TraceProcessorException(text)
        warnings.warn("trak: " + text, RuntimeWarning, 4)


def load(lib, trace, name, chunks, strict):
    """A finished processor (ctypes.c_void_p) for `trace`: a path (str) or the byte chunks
    `chunks` yields. `name` names the trace in messages. Raises TraceProcessorException."""
    diags = Diagnostics()
    opts = _lib.ProcessorOptions(diags.callback, None, None, 0)
    p, err = ctypes.c_void_p(), _lib.Error()
    if isinstance(trace, str):
        if lib.trak_processor_open_file(os.fsencode(trace), ctypes.byref(opts), ctypes.byref(p),
                                        ctypes.byref(err)) < 0:
            raise TraceProcessorException(err.text())
    else:
        if lib.trak_processor_new(ctypes.byref(opts), ctypes.byref(p), ctypes.byref(err)) < 0:
            raise TraceProcessorException(err.text())
        try:
            for chunk in chunks:
                chunk = chunk if isinstance(chunk, bytes) else bytes(chunk)
                if lib.trak_processor_feed(p, chunk, len(chunk), ctypes.byref(err)) < 0:
                    raise TraceProcessorException(err.text())
            if lib.trak_processor_finish(p, ctypes.byref(err)) < 0:
                raise TraceProcessorException(err.text())
        except BaseException:
            lib.trak_processor_free(p)
            raise
    try:
        diags.check(lib, p, name, strict)
    except TraceProcessorException:
        lib.trak_processor_free(p)
        raise
    return p
