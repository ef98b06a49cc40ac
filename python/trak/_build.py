"""Where the package was built from: setup.py rewrites LIBRARY in the installed copy with the
absolute path of the libtrak_processor.so it was built against (None in the source tree)."""
LIBRARY = None
