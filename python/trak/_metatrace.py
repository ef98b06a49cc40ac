"""A metatrace of what a TraceProcessor does for its caller (load, query, metric, trace_summary):
each call a slice, with its SQL as an argument, written as a Perfetto binary trace (TrackEvent
slices on one track) that trak, Perfetto's UI and trace_processor_shell open. Recording costs
two clock reads and a tuple per call."""
import time

TRACK_UUID = 0x7472616B  # "trak"
_SEQ = 1


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, value):
    """A protobuf field: an int as a varint, bytes/str as length-delimited."""
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    data = value.encode("utf-8") if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _packet(*fields):
    return _field(1, b"".join(fields))  # Trace.packet


class Metatrace:
    """The calls recorded since enable: (name, start ns, end ns, args)."""

    def __init__(self):
        self.events = []

    def record(self, name, start, args):
        self.events.append((name, start, time.monotonic_ns(), args))

    def serialize(self):
        """The calls as a Perfetto trace (bytes)."""
        # TracePacket: timestamp 8, trusted_packet_sequence_id 10, track_event 11,
        # track_descriptor 60 (protos/trace_packet.proto); TrackEvent: debug_annotations 4,
        # type 9 (1 begin, 2 end), track_uuid 11, name 23; DebugAnnotation: string_value 6,
        # name 10; TrackDescriptor: uuid 1, name 2.
        out = [_packet(_field(10, _SEQ), _field(60, _field(1, TRACK_UUID) +
                                                 _field(2, "trak trace processor")))]
        for name, start, end, args in self.events:
            annotations = b"".join(_field(4, _field(10, k) + _field(6, str(v)))
                                   for k, v in args.items())
            out.append(_packet(_field(8, start), _field(10, _SEQ), _field(
                11, _field(9, 1) + _field(11, TRACK_UUID) + _field(23, name) + annotations)))
            out.append(_packet(_field(8, end), _field(10, _SEQ),
                               _field(11, _field(9, 2) + _field(11, TRACK_UUID))))
        return b"".join(out)
