#!/usr/bin/env python3
"""`trak query` output formats read back by Python: csv (RFC 4180) through the csv module and
json through the json module give exactly the values SQLite computes (Python's sqlite3 runs the
same SELECT as the reference), NULL and '' stay apart in csv, and doubles round-trip bit for
bit. Usage: output_formats.py TRAK TRACE"""
import csv
import io
import json
import math
import sqlite3
import subprocess
import sys

trak, trace = sys.argv[1], sys.argv[2]

SQL = """select 'plain' as s, 'a,"b"' as quoted, 'two
lines' as nl, '' as empty, null as missing, 'tab	é 中' as unicode,
 1e-9 as tiny, 1e300 as huge, 0.1 as tenth, 1.0 / 3 as third, 2.0 as two, -0.5 as neg,
 9223372036854775807 as big, -42 as int, 123456789.123456789 as long_double
union all select 'x', ',', '"', ' ', 1, '', 5e-324, 1.7976931348623157e308, 1e16, 1e15,
 0.30000000000000004, 100.0, -9223372036854775808, 0, 1e-5"""

expected_rows = sqlite3.connect(":memory:").execute(SQL).fetchall()
names = [d[0] for d in sqlite3.connect(":memory:").execute(SQL).description]


def run(fmt, sql=SQL):
    return subprocess.run([trak, "query", trace, "--format", fmt, sql], check=True,
                          capture_output=True).stdout.decode()


def fail(msg):
    sys.exit("FAIL: " + msg)


def from_csv(field, want):
    if want is None:
        return None if field == "" else field
    if isinstance(want, float):
        return float(field)
    if isinstance(want, int):
        return int(field)
    return field


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b) or (a != a and b != b)
    return type(a) is type(b) and a == b


text = run("csv")
rows = list(csv.reader(io.StringIO(text, newline="")))
if rows[0] != names:
    fail(f"csv header {rows[0]} != {names}")
for got, want in zip(rows[1:], expected_rows):
    values = [from_csv(f, w) for f, w in zip(got, want)]
    for n, v, w in zip(names, values, want):
        if not same(v, w):
            fail(f"csv column {n}: read back {v!r}, SQLite gives {w!r}")
if len(rows) != len(expected_rows) + 1:
    fail(f"csv has {len(rows)} lines")
# NULL is an empty field, '' a quoted one: they stay apart in the text.
if ',"",,' not in text:
    fail(f"csv: '' and NULL are not told apart: {text!r}")

data = json.loads(run("json"))
for got, want in zip(data, expected_rows):
    if list(got) != names:
        fail(f"json keys {list(got)}")
    for n, w in zip(names, want):
        if not same(got[n], w):
            fail(f"json column {n}: read back {got[n]!r}, SQLite gives {w!r}")

# Over a real table, csv and json agree value for value.
table_sql = "select * from slice order by id"
by_json = json.loads(run("json", table_sql))
by_csv = list(csv.DictReader(io.StringIO(run("csv", table_sql), newline="")))
if len(by_json) != len(by_csv) or not by_json:
    fail("csv and json row counts differ for the slice table")
for j, c in zip(by_json, by_csv):
    for k, v in j.items():
        if ("" if v is None else str(v)) != c[k]:
            fail(f"slice.{k}: json {v!r}, csv {c[k]!r}")

# metrics --format json is one JSON object of every metric's rows.
metrics = json.loads(subprocess.run(
    [trak, "metrics", trace, "--run", "slice_stats,longest_slices", "--format", "json"],
    check=True, capture_output=True).stdout)
if sorted(metrics) != ["longest_slices", "slice_stats"] or not metrics["slice_stats"]:
    fail(f"metrics json: {metrics!r}")

# tp stays what trace_processor_shell prints.
tp = run("tp", "select 1e-9 as d, null as n, 'a' as s")
if tp != '"d","n","s"\n0.000000,"[NULL]","a"\n':
    fail(f"tp output changed: {tp!r}")
print("output format tests pass")
