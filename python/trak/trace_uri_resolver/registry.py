"""ResolverRegistry: resolves trace references (a path or URI string, a TraceUriResolver, bytes,
a file object, an iterator of chunks, or a list of them) to (trace, metadata) pairs through the
resolvers registered by PREFIX, recursively (a resolver may return URIs), as Perfetto's."""
import os
from typing import Dict, List

from .path import PathUriResolver
from .resolver import TraceUriResolver, split_uri


class ResolverRegistry:
    class Result:
        """One trace ready to load: `trace` (a path, bytes, a file object or an iterator of
        chunks) and the metadata of every resolver on the way to it."""

        def __init__(self, trace, metadata: Dict[str, str]):
            self.trace = trace
            self.metadata = metadata

        def __repr__(self):
            return "Result(trace=%r, metadata=%r)" % (self.trace, self.metadata)

    def __init__(self, resolvers=()):
        self.registry: Dict[object, type] = {}
        for resolver in resolvers:
            self.register(resolver)

    def register(self, provider: type):
        """Makes URIs `provider.PREFIX:...` resolve through `provider`."""
        self.registry[provider.PREFIX] = provider

    def resolve(self, ref) -> List["ResolverRegistry.Result"]:
        if isinstance(ref, list):
            return [r for item in ref for r in self._resolve_one(item)]
        return self._resolve_one(ref)

    def _resolve_one(self, ref):
        if isinstance(ref, os.PathLike):
            ref = os.fspath(ref)
        if isinstance(ref, str):
            resolver = self.resolver_for(ref)
        elif isinstance(ref, TraceUriResolver):
            resolver = ref
        else:
            return [ResolverRegistry.Result(ref, {})]
        out = []
        for outer in resolver.resolve():
            if isinstance(resolver, PathUriResolver) and outer.trace == resolver.path:
                out.append(ResolverRegistry.Result(outer.trace, dict(outer.metadata)))
                continue  # a file: loaded as itself
            for inner in self._resolve_one(outer.trace):
                out.append(ResolverRegistry.Result(inner.trace,
                                                   {**outer.metadata, **inner.metadata}))
        return out

    def resolver_for(self, uri: str) -> TraceUriResolver:
        """The resolver a URI names (a plain path: PathUriResolver). An unregistered name
        raises ValueError listing the registered ones."""
        name, _ = split_uri(uri)
        cls = self.registry.get(name)
        if cls is None:
            if name is None or os.path.exists(uri):  # a file whose name has a ':'
                return PathUriResolver(uri)
            raise ValueError("%s: no trace URI resolver named %r (registered: %s)" % (
                uri, name, ", ".join(sorted(str(k) for k in self.registry if k)) or "none"))
        return cls.from_trace_uri(uri)


def default_registry() -> ResolverRegistry:
    """A registry with PathUriResolver (plain paths, `path:` and globs)."""
    return ResolverRegistry([PathUriResolver])
