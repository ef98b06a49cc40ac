#!/usr/bin/env python3
# Writes ftrace_generic.pb (python3 gen_generic_ftrace.py > ftrace_generic.pb): self-describing
# ftrace events as traced_probes writes them with denser_generic_event_encoding (FtraceEvent
# fields 65536 and up, the bundle's generic_event_descriptors after its events, each holding a
# serialized DescriptorProto), with the cases Perfetto counts in ftrace_generic_descriptor_errors:
# an event no descriptor describes, a field its descriptor lacks, a descriptor of a field
# numbered 32 or more. Text format cannot write such fields (they are in no schema): bytes here.
import sys


def varint(v):
    v &= (1 << 64) - 1
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def key(num, wire):
    return varint(num << 3 | wire)


def vfield(num, v):
    return key(num, 0) + varint(v)


def lfield(num, data):
    if isinstance(data, str):
        data = data.encode()
    return key(num, 2) + varint(len(data)) + data


def descriptor(name, fields):
    # DescriptorProto: name 1, field 2 (FieldDescriptorProto: name 1, number 3, type 5)
    body = lfield(1, name)
    for fname, number, ftype in fields:
        body += lfield(2, lfield(1, fname) + vfield(3, number) + vfield(5, ftype))
    return body


UINT64, INT64, INT32, STRING, SINT64, BOOL = 4, 3, 5, 9, 18, 8
LOCKING = [("mm", 1, UINT64), ("memcg_path", 2, STRING), ("write", 3, BOOL)]
RETURNED = LOCKING + [("success", 4, BOOL)]


def event(ts, pid, field, payload):
    # FtraceEventBundle.event 2 (FtraceEvent: timestamp 1, pid 2, the message at `field`)
    return lfield(2, vfield(1, ts) + vfield(2, pid) + lfield(field, payload))


def gen_desc(field_id, group, desc):
    # GenericEventDescriptor: field_id 1, event_descriptor 2, group_name 3
    return lfield(11, vfield(1, field_id) + lfield(3, group) + lfield(2, desc))


def bundle(cpu, body):
    # Trace.packet 1 (TracePacket: ftrace_events 1, trusted_packet_sequence_id 10)
    return lfield(1, vfield(10, 1) + lfield(1, vfield(1, cpu) + body))


def main():
    locking = vfield(1, 0xFFFF8880_12345600) + lfield(2, "/sys/fs/cgroup/a") + vfield(3, 1)
    returned = vfield(1, 0xFFFF8880_12345600) + lfield(2, "") + vfield(3, 0) + vfield(4, 1)
    odd = vfield(1, 7) + vfield(9, 5) + lfield(2, "x")  # field 9: not in the descriptor
    signed = vfield(1, 1) + vfield(2, (-3 << 1) ^ (-3 >> 63)) + vfield(3, (-4) & ((1 << 64) - 1))

    first = (event(1000, 42, 65536, locking) + event(1100, 42, 65537, returned) +
             event(1200, 43, 65540, b"") + event(1300, 42, 65536, odd) +
             event(1400, 44, 65539, vfield(1, 1)) + event(1500, 42, 65536, locking) +
             event(1600, 45, 65541, signed) +
             gen_desc(65536, "mmap_lock", descriptor("mmap_lock_start_locking", LOCKING)) +
             gen_desc(65537, "mmap_lock", descriptor("mmap_lock_acquire_returned", RETURNED)) +
             gen_desc(65539, "bad", descriptor("too_many", [("f", 40, UINT64)])) +
             gen_desc(65541, "test", descriptor("signed_fields",
                                                [("a", 1, INT32), ("b", 2, SINT64), ("c", 3, INT64)])))
    # a later bundle's descriptor of a known field number does not replace the first
    second = (event(2000, 46, 65536, locking) +
              gen_desc(65536, "mmap_lock", descriptor("renamed", [("other", 1, STRING)])))
    sys.stdout.buffer.write(bundle(0, first) + bundle(1, second))


if __name__ == "__main__":
    main()
