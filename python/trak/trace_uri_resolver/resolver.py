"""TraceUriResolver: the base class of resolvers, which turn a URI (`NAME:key=value;...`) or
their own arguments into traces (each a path, a URI, bytes, a file object or an iterator of
chunks) with metadata, as Perfetto's class of the same name."""
import dataclasses
import enum
import typing
from typing import Dict, Generic, List, Optional, Tuple, TypeVar

_T = TypeVar("_T")


@dataclasses.dataclass
class ConstraintClass(Generic[_T]):
    """A URI argument with a comparison (`version>=3`): passed to resolvers whose constructor
    argument is typed with ConstraintClass."""

    class Op(enum.Enum):
        EQ = "="
        NE = "!="
        LE = "<="
        GE = ">="
        GT = ">"
        LT = "<"

        def __str__(self):
            return self.value

    value: _T
    op: Op = Op.EQ


_OPS = sorted(ConstraintClass.Op, key=lambda op: -len(op.value))  # ">=" before ">"


def split_uri(uri: str) -> Tuple[Optional[str], str]:
    """(resolver name, arguments) of a URI; (None, uri) for a plain path (one starting with
    '/' or '.', or without ':'). A one-letter name is refused (it reads as a drive letter)."""
    if uri.startswith(("/", ".")) or ":" not in uri:
        return None, uri
    name, rest = uri.split(":", 1)
    if len(name) == 1:
        raise ValueError("%s: one-letter resolver names are not allowed" % uri)
    return name, rest


def _parse_arg(arg: str):
    """(key, op, value) of one `key<op>value` argument."""
    end = 0
    while end < len(arg) and (arg[end].isalnum() or arg[end] == "_"):
        end += 1
    if end == 0:
        raise ValueError("no key in trace URI argument %r" % arg)
    op = next((o for o in _OPS if arg.startswith(o.value, end)), None)
    if op is None:
        raise ValueError("no operator after the key in trace URI argument %r" % arg)
    value = arg[end + len(op.value):]
    if not value:
        raise ValueError("empty value in trace URI argument %r" % arg)
    return arg[:end], op, value


def _takes_constraint(hint) -> bool:
    """True for ConstraintClass[...] and for unions (Optional, Union) holding one."""
    return any(getattr(a, "__origin__", None) is ConstraintClass
               for a in (hint,) + tuple(getattr(hint, "__args__", ())))


def uri_kwargs(uri: str, hints) -> Dict[str, object]:
    """The constructor arguments of a URI: `a=1;b=x,y;v>=3` gives {'a': '1', 'b': ['x', 'y'],
    'v': ConstraintClass('3', Op.GE)}; comparisons other than '=' only for arguments typed
    with ConstraintClass, which may repeat (a list of constraints)."""
    _, rest = split_uri(uri)
    out: Dict[str, object] = {}
    for arg in filter(None, rest.split(";")):
        key, op, value = _parse_arg(arg)
        parts = value.split(",")
        value = parts if len(parts) > 1 else value
        if not _takes_constraint(hints.get(key)):
            if op is not ConstraintClass.Op.EQ:
                raise ValueError("trace URI argument %r: %s only takes '='" % (arg, key))
            out[key] = value
            continue
        c = ConstraintClass(value, op)
        if key not in out:
            out[key] = c
        else:
            prev = out[key]
            out[key] = (prev if isinstance(prev, list) else [prev]) + [c]
    return out


class TraceUriResolver:
    """Resolves its arguments to traces. Subclasses set PREFIX (the NAME of `NAME:...` URIs),
    take their URI arguments as constructor keywords, and return a list of Result from
    resolve(). Register them with ResolverRegistry.register (or
    TraceProcessorConfig(resolver_registry=ResolverRegistry([MyResolver]))), or pass an
    instance as the trace itself."""

    PREFIX: Optional[str] = None

    class Result:
        """One trace: `trace` (a path, a URI, bytes, a file object or an iterator of chunks)
        and its `metadata` ({str: str}; BatchTraceProcessor adds it as columns)."""

        def __init__(self, trace, metadata: Optional[Dict[str, str]] = None):
            self.trace = trace
            self.metadata = dict(metadata or {})

        def __repr__(self):
            return "Result(trace=%r, metadata=%r)" % (self.trace, self.metadata)

    def resolve(self) -> List["TraceUriResolver.Result"]:
        raise NotImplementedError("%s.resolve is not implemented" % type(self).__name__)

    @classmethod
    def from_trace_uri(cls, uri: str) -> "TraceUriResolver":
        """An instance made from the URI's arguments (see uri_kwargs)."""
        return cls(**uri_kwargs(uri, typing.get_type_hints(cls.__init__)))
