#!/usr/bin/env python3
# Writes kernel_track_events.pb (python3 gen_kernel_track_events.py > kernel_track_events.pb):
# self-describing ftrace events (FtraceEvent fields 65536 and up, described by the bundle's
# generic_event_descriptors) whose field names follow Perfetto's kernel track event convention:
# track_event_type + slice_name make slices, counter_value counters; track_name names the track;
# scope_tgid, scope_cpu and scope_<any> pick a process's, a CPU's or a numbered track instead of
# the writing thread's. With the cases Perfetto counts in kernel_trackevent_format_error: a slice
# type other than B/E/I, an end without slice_name, a missing scope field (no track), a missing
# counter value; and an event whose track_event_type is a string (no track event at all).
# Text format cannot write such fields (they are in no schema): bytes here.
import sys

from gen_generic_ftrace import descriptor, event, gen_desc, lfield, vfield

INT64, UINT64, INT32, STRING, UINT32 = 3, 4, 5, 9, 13


def b(ch, name=None):
    body = vfield(1, ord(ch))
    return body + (lfield(2, name) if name is not None else b"")


def bundle(cpu, body):
    # Trace.packet 1 (TracePacket: ftrace_events 1, trusted_packet_sequence_id 10)
    return lfield(1, vfield(10, 1) + lfield(1, vfield(1, cpu) + body))


descs = (
    gen_desc(65536, "kte", descriptor("thread_work", [("track_event_type", 1, INT32),
                                                      ("slice_name", 2, STRING)])) +
    gen_desc(65537, "kte", descriptor("proc_phase", [("track_event_type", 1, UINT64),
                                                     ("slice_name", 2, STRING),
                                                     ("track_name", 3, STRING),
                                                     ("scope_tgid", 4, INT32)])) +
    gen_desc(65538, "kte", descriptor("cpu_load", [("counter_value", 1, INT64),
                                                   ("scope_cpu", 2, UINT32)])) +
    gen_desc(65539, "kte", descriptor("queue_depth", [("counter_value", 1, UINT64),
                                                      ("scope_queue", 2, INT64),
                                                      ("track_name", 3, STRING)])) +
    gen_desc(65540, "kte", descriptor("thread_count", [("counter_value", 1, INT32)])) +
    gen_desc(65541, "kte", descriptor("cpu_mark", [("track_event_type", 1, UINT32),
                                                   ("slice_name", 2, STRING),
                                                   ("scope_cpu", 3, UINT32)])) +
    gen_desc(65542, "kte", descriptor("not_kte", [("track_event_type", 1, STRING),
                                                  ("slice_name", 2, STRING)])))

first = (
    event(1000, 42, 65536, b("B", "work")) +
    event(1100, 42, 65536, b("B", "inner")) +
    event(1200, 42, 65536, b("E")) +             # no slice_name: format error, nothing ends
    event(1300, 42, 65536, b("E", "x")) +        # ends "inner"
    event(1400, 42, 65536, b("I", "tick")) +
    event(1500, 42, 65536, b("X", "bad")) +      # not B/E/I: format error
    event(1600, 50, 65537, b("B", "load") + lfield(3, "phases") + vfield(4, 100)) +
    event(1700, 51, 65537, b("E", "") + lfield(3, "phases") + vfield(4, 100)) +
    event(1800, 42, 65537, b("B", "noscope") + lfield(3, "phases")) +  # no scope: no track
    event(1900, 42, 65538, vfield(1, 75) + vfield(2, 3)) +
    event(2000, 42, 65538, vfield(1, -1) + vfield(2, 3)) +
    event(2100, 42, 65539, vfield(1, 5) + vfield(2, 7) + lfield(3, "q")) +
    event(2200, 42, 65539, vfield(1, 6) + vfield(2, -2) + lfield(3, "q")) +
    event(2300, 43, 65540, vfield(1, 9)) +
    event(2350, 43, 65540, b"") +                # no value: its track, then a format error
    event(2400, 42, 65541, b("I", "mark") + vfield(3, 1)) +
    event(2500, 42, 65542, lfield(1, "B") + lfield(2, "s")) +
    descs)
# the other CPU's bundle: the thread's slice "work" ends there
second = event(2600, 42, 65536, b("E", "work")) + event(2700, 60, 65537, b("I", "p") +
                                                       lfield(3, "phases") + vfield(4, 100))
sys.stdout.buffer.write(bundle(0, first) + bundle(1, second))
