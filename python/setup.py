"""Installs the trak package: `pip install ./python` after `make build` (offline, as on a
machine without PyPI access: `pip install --no-build-isolation ./python`).

Only setuptools is needed (Debian's python3-setuptools). The build copies libtrak_processor.so
(from TRAK_LIBRARY, else ../build/) into the package and records its path in trak/_build.py,
so the installed package finds the library it was built with.
"""
import os
import shutil

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = "libtrak_processor.so"


def built_library():
    path = os.environ.get("TRAK_LIBRARY") or os.path.join(HERE, "..", "build", LIBRARY)
    if not os.path.exists(path):
        raise SystemExit("trak: %s not found: run `make build` first, or set TRAK_LIBRARY to "
                         "the library" % path)
    return os.path.abspath(path)


class BuildPy(build_py):
    """Adds the library and its recorded path to the built package."""

    def run(self):
        super().run()
        library = built_library()
        package = os.path.join(self.build_lib, "trak")
        shutil.copy2(library, os.path.join(package, LIBRARY))
        with open(os.path.join(package, "_build.py"), "w") as f:
            f.write('"""Written by setup.py: the library this package was built with."""\n'
                    "LIBRARY = %r\n" % library)


class BinaryDistribution(Distribution):
    """The package carries a native library: its wheel is for this platform only."""

    def has_ext_modules(self):
        return True


setup(
    name="trak",
    version="0.1.0",
    description="trak's trace processor from Python, in the shape of Perfetto's API",
    packages=["trak", "trak.trace_uri_resolver"],
    python_requires=">=3.7",
    extras_require={"pandas": ["pandas", "numpy"]},
    cmdclass={"build_py": BuildPy},
    distclass=BinaryDistribution,
)
