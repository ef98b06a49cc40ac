"""Packaging: `pip install` works offline (no build isolation, no index) and the installed
package finds the library it was built with; rows work without pandas and numpy."""
import os
import shutil
import subprocess
import sys

import pytest

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def run(args, env=None, **kw):
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, **kw)


def test_offline_pip_install_finds_its_library(tmp_path, small_trace_file):
    library = os.environ.get("TRAK_LIBRARY")
    if not library:
        pytest.fail("TRAK_LIBRARY is not set: run the tests through ctest")
    source = tmp_path / "src"  # a copy: the build must not write into the repository
    shutil.copytree(PYTHON_DIR, source, ignore=shutil.ignore_patterns(
        "tests", "build", "*.egg-info", "__pycache__"))
    target = tmp_path / "site"
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    r = run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
             "--no-index", "--target", str(target), str(source)], env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (target / "trak" / "libtrak_processor.so").exists()

    env = {k: v for k, v in os.environ.items() if k not in ("TRAK_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(target)
    code = ("import trak, trak._lib as l; tp = trak.TraceProcessor(trace=%r); "
            "print(l.load()._name); print(next(iter(tp.query('select count(*) as n "
            "from slice'))).n)" % small_trace_file)
    r = run([sys.executable, "-c", code], env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    loaded, count = r.stdout.split()
    assert loaded == str(target / "trak" / "libtrak_processor.so")
    assert count == "3"
    recorded = (target / "trak" / "_build.py").read_text()
    assert os.path.abspath(library) in recorded


def test_rows_without_pandas_or_numpy(small_trace_file):
    # A meta-path finder that refuses pandas and numpy, as on a machine without them.
    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('pandas', 'numpy'):
            raise ImportError('blocked ' + name)
sys.meta_path.insert(0, Block())
import trak
tp = trak.TraceProcessor(trace=%r)
print([r.name for r in tp.query('select name from slice order by id')])
try:
    tp.query('select 1').as_pandas_dataframe()
except ImportError as e:
    print('no pandas:', e)
""" % small_trace_file
    r = run([sys.executable, "-c", code])
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["['héllo wörld ✓', 'inner', '日本語']",
                                     "no pandas: blocked numpy"]
