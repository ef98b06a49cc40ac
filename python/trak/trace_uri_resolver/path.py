"""PathUriResolver: plain paths, `path:PATH` URIs and globs (`traces/*.pftrace`,
`path:runs/**/*.pb`), each file a trace whose metadata `_path` is its path (as Perfetto's)."""
import glob
import os

from .resolver import TraceUriResolver, split_uri

_GLOB_CHARS = "*?["


class PathUriResolver(TraceUriResolver):
    PREFIX = "path"

    def __init__(self, path: str):
        self.path = path

    def paths(self):
        """The files named: the path itself, or a glob's matches in sorted order (none: a glob
        that matches nothing names no trace)."""
        if any(c in self.path for c in _GLOB_CHARS) and not os.path.exists(self.path):
            return sorted(glob.glob(self.path, recursive=True))
        return [self.path]

    def resolve(self):
        # The path itself (not a file object): TraceProcessor opens it, so that errors name it.
        return [TraceUriResolver.Result(p, {"_path": p}) for p in self.paths()]

    @classmethod
    def from_trace_uri(cls, uri: str) -> "PathUriResolver":
        return cls(split_uri(uri)[1])
