"""trace_summary() and metric() shapes as Perfetto's: TraceSummary from TraceSummarySpec text
(metric_spec and metric_template_spec over `sql`, `table` or shared queries), and TraceMetrics
of trak's metric tables. Both are Message objects (trak/_message.py)."""
from ._message import Message, parse_text
from ._result import TraceProcessorException


class TraceMetrics(Message):
    """tp.metric()'s result: one field per metric, named as the metric, whose value is its
    `<name>_output` table (a QueryResultIterator: rows, or as_pandas_dataframe()). As a
    mapping too: metrics["slice_stats"], list(metrics)."""

    def __getitem__(self, name):
        return self.__dict__[name]

    def __iter__(self):
        return iter(self.__dict__)

    def __len__(self):
        return len(self.__dict__)

    def keys(self):
        return self.__dict__.keys()

    def items(self):
        return self.__dict__.items()

    def __str__(self):
        lines = []
        for name, result in self.items():
            lines.append("%s {\n" % name)
            for row in result:
                lines.append("  row {\n" + "".join(
                    "    %s: %s\n" % (k, _value_text(v)) for k, v in row._asdict().items()
                    if v is not None) + "  }\n")
            lines.append("}\n")
        return "".join(lines)


def _value_text(v):
    return str(Message(v=v)).split(": ", 1)[1].rstrip("\n")


def _one(fields, name, default=None):
    values = fields.get(name)
    return values[-1] if values else default


def _sql_of(query, shared, source):
    """The SQL a PerfettoSqlStructuredQuery (as parsed) stands for: its `sql`, its `table`,
    or the shared query `inner_query_id` names."""
    if "sql" in query:
        sql = _one(query["sql"][-1], "sql")
        if not sql:
            raise TraceProcessorException("%s: a query's sql has no `sql` text" % source)
        return sql
    if "table" in query:
        return "SELECT * FROM %s" % _one(query["table"][-1], "table_name")
    if "inner_query_id" in query:
        qid = _one(query, "inner_query_id")
        if qid not in shared:
            raise TraceProcessorException("%s: no query with id %r" % (source, qid))
        return _sql_of(shared[qid], shared, source)
    kinds = sorted(k for k in query if k not in ("id",))
    raise TraceProcessorException("%s: trak runs queries given as sql, table or inner_query_id; "
                                  "not %s" % (source, ", ".join(kinds) or "an empty query"))


def _specs(texts):
    """(metric specs as parsed, shared queries by id) of every spec text."""
    metrics, shared = [], {}
    for n, text in enumerate(texts):
        source = "spec %d" % n
        if isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError:
                raise TraceProcessorException(
                    "%s: binary TraceSummarySpec is not supported: pass its text format"
                    % source) from None
        try:
            spec = parse_text(text, source)
        except ValueError as e:
            raise TraceProcessorException(str(e)) from None
        for q in spec.get("query", []):
            shared[_one(q, "id")] = q
        metrics.extend((m, source) for m in spec.get("metric_spec", []))
        for t in spec.get("metric_template_spec", []):  # one metric per value column
            for col in t.get("value_columns", []):
                m = dict(t, id=["%s_%s" % (_one(t, "id_prefix"), col)], value=[col])
                metrics.append((m, source))
    return metrics, shared


def _dimension(v):
    if v is None:
        return Message(null_value=Message())
    if isinstance(v, bool):
        return Message(bool_value=v)
    if isinstance(v, int):
        return Message(int64_value=v)
    if isinstance(v, float):
        return Message(double_value=v)
    return Message(string_value=str(v))


def trace_summary(query, texts, metric_ids=None, metadata_query_id=None):
    """A TraceSummary Message of the specs; `query(sql)` runs SQL on the trace."""
    metrics, shared = _specs(texts)
    known = [_one(m, "id") for m, _ in metrics]
    for mid in metric_ids or []:
        if mid not in known:
            raise TraceProcessorException("no metric with id %r in the specs" % mid)
    bundles = {}  # bundle id -> (specs, rows as [dimension values, [value per spec]])
    for m, source in metrics:
        mid = _one(m, "id")
        if metric_ids is not None and mid not in metric_ids:
            continue
        dims, value = m.get("dimensions", []), _one(m, "value")
        if not value or "query" not in m:
            raise TraceProcessorException("%s: metric %s needs a value and a query"
                                          % (source, mid))
        sql = _sql_of(m["query"][-1], shared, source)
        specs, rows = bundles.setdefault(_one(m, "bundle_id", mid), ([], []))
        n = len(specs)
        specs.append(Message(id=mid, dimensions=list(dims), value=value))
        for row in query("SELECT %s FROM (%s)" % (", ".join(dims + [value]), sql)):
            key = [row[k] for k in range(len(dims))]
            # A query row per bundle row; metrics sharing a bundle fill the row of the same
            # dimensions that has no value of theirs yet.
            slot = next((r for r in rows if r[0] == key and len(r[1]) == n), None) if n else None
            if slot is None:
                slot = [key, [None] * n]
                rows.append(slot)
            slot[1].append(row[len(dims)])
    out = []
    for bundle_id, (specs, rows) in bundles.items():
        out.append(Message(bundle_id=bundle_id, row=[Message(
            values=[Message(null_value=Message()) if v is None else
                    Message(double_value=float(v))
                    for v in values + [None] * (len(specs) - len(values))],
            dimension=[_dimension(d) for d in key]) for key, values in rows],
            specs=specs))
    metadata = []
    if metadata_query_id is not None:
        if metadata_query_id not in shared:
            raise TraceProcessorException("no query with id %r in the specs" % metadata_query_id)
        for row in query(_sql_of(shared[metadata_query_id], shared, "metadata")):
            d = row._asdict()
            metadata.append(Message(key=str(d.get("key", row[0])),
                                    value=str(d.get("value", row[len(row) - 1]))))
    return Message(metric_bundles=out, metadata=metadata)
