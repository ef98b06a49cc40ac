#!/usr/bin/env python3
# Writes frame_timeline_enums.pb (python3 gen_frame_timeline_enums.py > frame_timeline_enums.pb):
# FrameTimelineEvent starts (TracePacket 76) whose enum fields hold values out of their enums'
# ranges, which text format cannot write: present types 0 and 9 (and an experimental 6),
# prediction types 0 and 7, each counted in frame_timeline_event_parser_errors with the default
# name kept; and a start whose pid is negative (Perfetto's pid is its uint32).
# (Severity and latched fence values out of range are left out: Perfetto reads past its name
# table for them; trak counts them and names them "Unknown", fuzz_import's corpus has them.)
import os
import sys

# the wire helpers of the generic ftrace generator
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "linux"))
from gen_generic_ftrace import lfield, vfield  # noqa: E402


def packet(ts, event_field, body):
    # TracePacket: timestamp 8, trusted_packet_sequence_id 10, frame_timeline_event 76
    ftl = lfield(event_field, body)
    return lfield(1, vfield(8, ts) + vfield(10, 1) + lfield(76, ftl))


def display(cookie, token, pid, **enums):
    # ActualDisplayFrameStart: cookie 1, token 2, pid 3, present_type 4, prediction_type 8,
    # present_type_experimental 13
    body = vfield(1, cookie) + vfield(2, token) + vfield(3, pid)
    for name, num in (("present", 4), ("prediction", 8), ("present_exp", 13)):
        if name in enums:
            body += vfield(num, enums[name])
    return body


END = 5
out = b""
out += packet(10, 2, display(1, 100, 500, present=9, prediction=7, present_exp=6))
out += packet(20, END, vfield(1, 1))
out += packet(30, 2, display(2, 101, 500, present=0, prediction=0))
out += packet(40, END, vfield(1, 2))
out += packet(50, 1, vfield(1, 3) + vfield(2, 102) + vfield(3, -5))
out += packet(60, END, vfield(1, 3))
sys.stdout.buffer.write(out)
