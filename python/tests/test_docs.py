"""docs/python.md as a test: its ```python blocks marked `<!-- run: session=NAME -->` (found
by tests/cli/docs_examples.py's blocks()) run as written, in page order, each session in one
namespace as a notebook would, from a scratch directory whose entries link to the
repository's. A block in `>>>` form runs statement by statement and each statement's output
(printed values, warnings as `Warning: message`, an exception as `module.Class: message`) must
be the lines shown, where shown (`...` stands for any lines, as in docs_examples.py)."""
import contextlib
import importlib.util
import io
import os
import traceback
import warnings

import pytest

from conftest import SOURCE_DIR

PAGE = os.path.join(SOURCE_DIR, "docs", "python.md")


def _docs_examples():
    spec = importlib.util.spec_from_file_location(
        "docs_examples", os.path.join(SOURCE_DIR, "tests", "cli", "docs_examples.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DOCS = _docs_examples()


def sessions():
    """{session: [(line, block lines)]} of the page's runnable python blocks, in order."""
    out = {}
    for line, opts, lang, lines in DOCS.blocks(PAGE):
        if lang == "python":
            out.setdefault(opts.get("session", "line %d" % line), []).append((line, lines))
    return out


def statements(lines):
    """(source, shown output lines) of each `>>>` statement of a block."""
    out, k = [], 0
    while k < len(lines):
        if not lines[k].startswith(">>>"):
            k += 1
            continue
        source = [lines[k][4:]]
        k += 1
        while k < len(lines) and lines[k].startswith("..."):
            source.append(lines[k][4:])
            k += 1
        shown = []
        while k < len(lines) and not lines[k].startswith(">>>"):
            shown.append(lines[k].rstrip())
            k += 1
        while shown and not shown[-1]:
            shown.pop()
        out.append(("\n".join(source) + "\n", shown))
    return out


def run_statement(source, namespace):
    """The output lines of one statement, as a notebook shows them."""
    buffer = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(buffer):
        warnings.simplefilter("always")
        try:
            exec(compile(source, "<docs/python.md>", "single"), namespace)
        except Exception as e:  # noqa: BLE001 (shown in the page)
            module = type(e).__module__
            name = type(e).__name__ if module == "builtins" else module + "." + type(e).__name__
            print("%s: %s" % (name, e))
    lines = buffer.getvalue().rstrip("\n").split("\n") if buffer.getvalue().strip() else []
    lines += ["%s: %s" % (w.category.__name__, w.message) for w in caught
              if "trak" in str(w.message)]
    return [line.rstrip() for line in lines]


def scratch(tmp_path):
    for entry in os.listdir(SOURCE_DIR):
        if not entry.startswith(".") and not entry.startswith("build"):
            os.symlink(os.path.join(SOURCE_DIR, entry), tmp_path / entry)
    return tmp_path


SESSIONS = sessions()


def test_the_page_has_runnable_blocks():
    assert sum(len(b) for b in SESSIONS.values()) >= 10


@pytest.mark.parametrize("session", sorted(SESSIONS))
def test_session_runs_as_written(session, tmp_path, monkeypatch):
    monkeypatch.chdir(scratch(tmp_path))
    namespace = {"__name__": "__main__"}
    for line, lines in SESSIONS[session]:
        where = "docs/python.md:%d" % line
        if not any(l.startswith(">>>") for l in lines):
            try:
                exec(compile("\n".join(lines) + "\n", where, "exec"), namespace)
            except Exception:  # noqa: BLE001
                pytest.fail("%s raises:\n%s" % (where, traceback.format_exc()))
            continue
        for source, shown in statements(lines):
            got = run_statement(source, namespace)
            if shown and not DOCS.matches(shown, got):
                pytest.fail("%s: `%s` gives:\n%s\n--- but the page shows:\n%s" % (
                    where, source.strip(), "\n".join(got), "\n".join(shown)))
            if not shown and any(": " in g and g.split(":")[0].endswith(("Exception", "Error"))
                                 for g in got):
                pytest.fail("%s: `%s` raises:\n%s" % (where, source.strip(), "\n".join(got)))
