"""Shared fixtures of the Python tests: where the repository's test traces are, and small
traces written here. ctest runs them with TRAK_LIBRARY set to the built library."""
import os

import pytest

SOURCE_DIR = os.environ.get("TRAK_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))

# Two slices (one with a unicode name, one unfinished: dur -1), an instant, a NULL parent.
SMALL_TRACE = """
packet { track_descriptor { uuid: 1 name: "main" } }
packet { trusted_packet_sequence_id: 1 timestamp: 100
  track_event { type: TYPE_SLICE_BEGIN track_uuid: 1 name: "héllo wörld ✓" } }
packet { trusted_packet_sequence_id: 1 timestamp: 150
  track_event { type: TYPE_SLICE_BEGIN track_uuid: 1 name: "inner" } }
packet { trusted_packet_sequence_id: 1 timestamp: 170
  track_event { type: TYPE_SLICE_END track_uuid: 1 } }
packet { trusted_packet_sequence_id: 1 timestamp: 200
  track_event { type: TYPE_SLICE_END track_uuid: 1 } }
packet { trusted_packet_sequence_id: 1 timestamp: 300
  track_event { type: TYPE_INSTANT track_uuid: 1 name: "日本語" } }
""".encode("utf-8")


@pytest.fixture
def small_trace():
    return SMALL_TRACE


@pytest.fixture
def small_trace_file(tmp_path):
    path = tmp_path / "small.pbtxt"
    path.write_bytes(SMALL_TRACE)
    return str(path)


@pytest.fixture
def app_trace():
    return os.path.join(SOURCE_DIR, "tests", "data", "analysis", "app.pbtxt")


@pytest.fixture
def analysis_dir():
    return os.path.join(SOURCE_DIR, "tests", "data", "analysis")


def pytest_sessionfinish(session, exitstatus):
    """No test collected (pytest's exit 5) is a failure of the suite, never a pass or skip."""
    if exitstatus == 5:
        print("\ntrak: no Python test was collected")
        session.exitstatus = 1
