"""Message: a read-only stand-in for the protobuf messages Perfetto's API returns (TraceMetrics,
TraceSummary): fields as attributes, repeated fields as lists, HasField, ListFields and str() in
protobuf text format, without depending on the protobuf package. Also parse_text(), enough of
the text format to read TraceSummarySpec: fields, nested messages, strings, numbers, enums."""
import re

_TOKEN = re.compile(r'\s*(?:#[^\n]*\n\s*)*(?:("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')|'
                    r'([A-Za-z_][\w.]*|[-+]?[\d.][\w.+-]*)|([{}:<>;,\[\]]))')


class Message:
    """Fields given as keywords, in order; a list value is a repeated field."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def HasField(self, name):  # noqa: N802 (protobuf's name)
        value = self.__dict__.get(name)
        return value is not None and value != []

    def ListFields(self):  # noqa: N802
        return [(name, v) for name, v in self.__dict__.items() if self.HasField(name)]

    def __eq__(self, other):
        return isinstance(other, Message) and self.__dict__ == other.__dict__

    def __str__(self):
        return "".join(_text(self, 0))

    def __repr__(self):
        return "Message(%s)" % ", ".join("%s=%r" % kv for kv in self.ListFields())


def _scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"%s"' % v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return repr(v)


def _text(msg, depth):
    pad = "  " * depth
    for name, value in msg.ListFields():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, Message):
                yield "%s%s {\n" % (pad, name)
                yield from _text(v, depth + 1)
                yield "%s}\n" % pad
            else:
                yield "%s%s: %s\n" % (pad, name, _scalar(v))


def _unquote(s):
    return bytes(s[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


def parse_text(text, source="spec"):
    """{field: [values]} of a text-format message (nested messages as dicts of the same form).
    Raises ValueError naming `source` and the offset of the first token it cannot read."""
    tokens, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError("%s: cannot read the text format at offset %d" % (source, pos))
        tokens.append((m.group(1), m.group(2), m.group(3), m.start()))
        pos = m.end()
        if text[pos:].strip() == "":
            break
    out, stack, i = {}, [], 0
    cur = out
    while i < len(tokens):
        quoted, word, punct, at = tokens[i]
        if punct in ("}", ">"):
            if not stack:
                raise ValueError("%s: unmatched '%s' at offset %d" % (source, punct, at))
            cur = stack.pop()
            i += 1
            continue
        if punct in (";", ","):
            i += 1
            continue
        if not word:
            raise ValueError("%s: expected a field name at offset %d" % (source, at))
        nxt = tokens[i + 1] if i + 1 < len(tokens) else (None, None, None, len(text))
        if nxt[2] == ":":
            i += 1
            nxt = tokens[i + 1] if i + 1 < len(tokens) else (None, None, None, len(text))
        if nxt[2] in ("{", "<"):
            child = {}
            cur.setdefault(word, []).append(child)
            stack.append(cur)
            cur = child
            i += 2
            continue
        if nxt[0] is not None:  # adjacent strings concatenate
            value, i = "", i + 1
            while i < len(tokens) and tokens[i][0] is not None:
                value += _unquote(tokens[i][0])
                i += 1
        elif nxt[1] is not None:
            value, i = _number(nxt[1]), i + 2
        else:
            raise ValueError("%s: expected a value for %s at offset %d" % (source, word, nxt[3]))
        cur.setdefault(word, []).append(value)
    if stack:
        raise ValueError("%s: a message is not closed at the end" % source)
    return out


def _number(word):
    for conv in (int, float):
        try:
            return conv(word)
        except ValueError:
            pass
    return word  # an enum value or true/false
