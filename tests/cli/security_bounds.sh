#!/usr/bin/env bash
# Resource bounds and silent losses of issue #32, second part: hostile traces generated here
# (by python3) must import in memory proportional to their size (under a 256 MB `ulimit -v`,
# not under sanitizers, whose shadow memory needs far more), in time a quadratic path cannot
# meet, and with every loss counted and every text output valid UTF-8 or escaped.
set -u
TRAK=$1
GEN=${HOSTILE_GEN:?}
. "$TRAK_SOURCE_DIR/tests/support/check_lib.sh"
limit=unlimited
[ "$("$GEN" sanitized)" = 0 ] && limit=262144
# Protobuf wire writers for the traces crafted byte by byte below (v: varint, ld: a
# length-delimited field, vi: a varint field).
cat >"$WORK/pbwire.py" <<'PY'
def v(n):
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        if not n:
            return out + bytes([b])
        out += bytes([b | 0x80])
ld = lambda tag, data: v(tag << 3 | 2) + v(len(data)) + data
vi = lambda tag, n: v(tag << 3) + v(n)
PY

# ---- 1. memory per sequence: 2,000 sequences, 20,000 JSON threads --------------------------------
python3 - "$WORK/seqs.pbtxt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('packet { timestamp: 1 track_descriptor { uuid: 7 name: "t" } }\n')
    for i in range(2000):
        f.write('packet { trusted_packet_sequence_id: %d timestamp: %d '
                'track_event { type: TYPE_INSTANT track_uuid: 7 name: "e" } }\n' % (i + 1, i + 2))
PY
"$TRAK" convert "$WORK/seqs.pbtxt" "$WORK/seqs.pb" || { echo "FAIL: convert seqs"; fail=1; }
(ulimit -v $limit; exec "$TRAK" query --format csv "$WORK/seqs.pb" "SELECT count(*) AS n FROM slice") \
  >"$WORK/seqs.out" 2>&1
grep -qx 2000 "$WORK/seqs.out" || { echo "FAIL: 2,000 sequences under ulimit -v $limit:"; tail -3 "$WORK/seqs.out"; fail=1; }
python3 - "$WORK/threads.json" <<'PY'
import sys
ev = ['{"name":"a","ph":"X","ts":%d,"dur":1,"pid":1,"tid":%d}' % (i, i + 1) for i in range(20000)]
open(sys.argv[1], "w").write('{"traceEvents":[' + ",".join(ev) + "]}")
PY
(ulimit -v $limit; exec "$TRAK" query --format csv "$WORK/threads.json" "SELECT count(*) AS n FROM slice") \
  >"$WORK/threads.out" 2>&1
grep -qx 20000 "$WORK/threads.out" || { echo "FAIL: 20,000 JSON threads under ulimit -v $limit:"; tail -3 "$WORK/threads.out"; fail=1; }

# 400,000 sequence ids in 2.4 MB (one empty packet each): unbounded, their state took 380 MB and
# aborted under the 256 MB bound. Past the import's memory bound a new sequence is refused,
# counted (import_memory_limit), its events dropped and counted; the first sequence's event stays.
python3 - "$WORK/seqs400k.pb" "$WORK" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from pbwire import ld, vi
event = lambda ts, seq, name: ld(1, vi(8, ts) + vi(10, seq) + ld(11, vi(9, 3) + vi(11, 7) + ld(23, name)))
out = [ld(1, vi(10, 1) + ld(60, vi(1, 7) + ld(2, b"t"))), event(5, 1, b"first")]
out += [ld(1, vi(10, i)) for i in range(2, 400001)]
out.append(event(9, 400000, b"last"))
open(sys.argv[1], "wb").write(b"".join(out))
PY
(ulimit -v $limit; exec "$TRAK" query --format csv "$WORK/seqs400k.pb" \
  "SELECT name FROM slice; SELECT value FROM stats WHERE name = 'import_memory_limit'") \
  >"$WORK/seqs400k.out" 2>"$WORK/seqs400k.err"
[ "$(tr '\n' ' ' <"$WORK/seqs400k.out")" = "name first  value 2 " ] ||
  { echo "FAIL: 400,000 sequences under ulimit -v $limit:"; tail -3 "$WORK/seqs400k.out" "$WORK/seqs400k.err"; fail=1; }
expect_lines "$WORK/seqs400k.err" "sequence 400000 was refused (too many sequences for the trace's size); event dropped"

# ---- 6. quadratic time: 60,000 complete events each partly overlapping all before it need 60,000
# overflow lanes; a linear search of the lanes per event takes minutes (40,000: 96 s), the lane
# tree well under a second of CPU.
python3 - "$WORK/overlap.json" <<'PY'
import sys
ev = ['{"name":"o","ph":"X","ts":%d,"dur":60000,"pid":1,"tid":1}' % i for i in range(60000)]
open(sys.argv[1], "w").write('{"traceEvents":[' + ",".join(ev) + "]}")
PY
timeout 60 "$TRAK" query --format csv "$WORK/overlap.json" \
  "SELECT count(*) AS n, count(DISTINCT track_id) AS lanes FROM slice" >"$WORK/overlap.out" 2>/dev/null
expect_lines "$WORK/overlap.out" "60000,60000"

# ---- 7. track hierarchies: a loop is reported as a loop, a chain past 98 ancestors as too deep
# (error severity: check fails), 98 ancestors import; every walk is a loop, never recursion.
python3 - "$WORK/tracks.pbtxt" <<'PY'
import sys
P = 'packet { trusted_packet_sequence_id: 1 %s }'
out = [P % 'track_descriptor { uuid: 1 parent_uuid: 2 name: "loop1" }',
       P % 'track_descriptor { uuid: 2 parent_uuid: 1 name: "loop2" }',
       P % 'track_descriptor { uuid: 3 parent_uuid: 2 name: "below_loop" }',
       P % 'track_descriptor { uuid: 1000 name: "root" }',
       P % 'track_descriptor { uuid: 5000 name: "deep_root" }']
out += [P % ('track_descriptor { uuid: %d parent_uuid: %d }' % (1000 + k, 999 + k)) for k in range(1, 99)]
out += [P % ('track_descriptor { uuid: %d parent_uuid: %d }' % (5000 + k, 4999 + k)) for k in range(1, 100000)]
for ts, u in ((10, 1), (20, 3), (30, 1098), (40, 5150), (50, 5098), (60, 104999)):
    out.append('packet { timestamp: %d trusted_packet_sequence_id: 1 track_event '
               '{ name: "e%d" type: TYPE_INSTANT track_uuid: %d } }' % (ts, u, u))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
"$TRAK" check "$WORK/tracks.pbtxt" >"$WORK/tracks.out" 2>&1 && { echo "FAIL: check passes a track loop"; fail=1; }
expect_lines "$WORK/tracks.out" \
  "track uuid 1: its parent chain loops back to uuid 1, which is its own ancestor; dropped [track_event_track_hierarchy_loop]" \
  "track uuid 3: its parent chain loops back to uuid 2, which is its own ancestor; dropped" \
  "track uuid 5099 has more than 98 ancestors (the limit); dropped [track_event_track_hierarchy_too_deep]" \
  "track uuid 104999 has more than 98 ancestors (the limit); dropped"
grep -q "uuid 5098 has more" "$WORK/tracks.out" && { echo "FAIL: 98 ancestors refused"; fail=1; }
"$TRAK" query --format csv "$WORK/tracks.pbtxt" "SELECT name FROM slice ORDER BY ts" >"$WORK/tracks.csv" 2>/dev/null
[ "$(tr '\n' ' ' <"$WORK/tracks.csv")" = "name e1098 e5098 " ] || { echo "FAIL: slices kept:"; cat "$WORK/tracks.csv"; fail=1; }

# ---- 7. invalid UTF-8 in protobuf strings: dump escapes it in octal (and reads back to the same
# bytes), convert to JSON and query --format csv write U+FFFD; csv keeps a string whole past an
# embedded NUL.
printf '%s\n' 'packet { trusted_packet_sequence_id: 1 process_tree { processes { pid: 5 cmdline: "a\377b\303\251c\355\240\200" } } }' \
  'packet { trusted_packet_sequence_id: 1 timestamp: 5 track_descriptor { uuid: 9 name: "t" } }' \
  'packet { trusted_packet_sequence_id: 1 timestamp: 10 track_event { type: TYPE_INSTANT track_uuid: 9 name: "x\377y" } }' \
  >"$WORK/utf8.pbtxt"
"$TRAK" convert "$WORK/utf8.pbtxt" "$WORK/utf8.pb" || fail=1
"$TRAK" dump "$WORK/utf8.pb" >"$WORK/utf8.txt"
expect_lines "$WORK/utf8.txt" 'cmdline: "a\377béc\355\240\200"' 'name: "x\377y"'
"$TRAK" convert "$WORK/utf8.txt" "$WORK/utf8_back.pb" && cmp -s "$WORK/utf8.pb" "$WORK/utf8_back.pb" ||
  { echo "FAIL: dump's escapes do not read back to the same bytes"; fail=1; }
"$TRAK" convert "$WORK/utf8.pb" "$WORK/utf8.json" || fail=1
python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$WORK/utf8.json" ||
  { echo "FAIL: convert to JSON wrote invalid UTF-8"; fail=1; }
expect_lines "$WORK/utf8.json" '"name":"x�y"' # repaired on import
"$TRAK" query --format csv "$WORK/utf8.pb" "SELECT name, 'a' || char(0) || 'b' AS z FROM slice" >"$WORK/utf8.csv"
python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); assert d == "name,z\nx\ufffdy,\"a\0b\"\n".encode(), d' \
  "$WORK/utf8.csv" || { echo "FAIL: csv output"; fail=1; }

# The import counts each string it repairs (string_invalid_utf8, error severity: check fails)
# and stores it readable: U+FFFD in the table, in a slice name and in a debug annotation alike.
printf '%s\n' 'packet { trusted_packet_sequence_id: 1 timestamp: 5 track_descriptor { uuid: 9 name: "t" } }' \
  'packet { trusted_packet_sequence_id: 1 timestamp: 10 track_event { type: TYPE_INSTANT track_uuid: 9 name: "x\377y" debug_annotations { name: "k" string_value: "v\300\200w" } } }' \
  >"$WORK/utf8b.pbtxt"
"$TRAK" convert "$WORK/utf8b.pbtxt" "$WORK/utf8b.pb" || fail=1
"$TRAK" check "$WORK/utf8b.pb" >"$WORK/utf8b.out" 2>&1 && { echo "FAIL: check passes invalid UTF-8"; fail=1; }
expect_lines "$WORK/utf8b.out" \
  "packet 1: error: a string holds 1 invalid UTF-8 sequence(s) (the first at its byte 1); replaced by U+FFFD [string_invalid_utf8]" \
  "packet 1: error: a string holds 2 invalid UTF-8 sequence(s) (the first at its byte 1); replaced by U+FFFD [string_invalid_utf8]"
"$TRAK" query --format csv "$WORK/utf8b.pb" "SELECT hex(name) AS h FROM slice UNION ALL
  SELECT hex(display_value) FROM args WHERE key = 'debug.k' UNION ALL
  SELECT value FROM stats WHERE name = 'string_invalid_utf8'" >"$WORK/utf8b.csv" 2>/dev/null
[ "$(tr '\n' ' ' <"$WORK/utf8b.csv")" = "h 78EFBFBD79 76EFBFBDEFBFBD77 2 " ] ||
  { echo "FAIL: invalid UTF-8 not repaired and counted:"; cat "$WORK/utf8b.csv"; fail=1; }

# ---- 5. a packed repeated field that ends in a cut varint (extra_counter_values: 5, then 0x80)
# is counted as malformed (packet_malformed), not skipped in silence; the value before it is kept.
python3 - "$WORK/packed.pb" "$WORK" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from pbwire import ld, vi
td = ld(60, vi(1, 9) + ld(2, b"t"))
te = vi(9, 3) + vi(11, 9) + ld(23, b"e") + ld(12, bytes([5, 0x80]))
open(sys.argv[1], "wb").write(ld(1, vi(10, 1) + td) + ld(1, vi(8, 10) + vi(10, 1) + ld(11, te)))
PY
"$TRAK" check "$WORK/packed.pb" >"$WORK/packed.out" 2>&1 && { echo "FAIL: check passes a bad packed field"; fail=1; }
expect_lines "$WORK/packed.out" \
  "packet 1: error: a packed repeated field of track_event does not decode; the values before the bad one were kept [packet_malformed]" \
  "1 extra counter values for 0 track uuids"

# ---- 8. a JSON trace saved as UTF-16 (with or without a byte order mark) says so
printf '{"traceEvents":[]}' | iconv -f UTF-8 -t UTF-16 >"$WORK/u16.json"
printf '{"traceEvents":[]}' | iconv -f UTF-8 -t UTF-16BE >"$WORK/u16be.json"
for f in u16 u16be; do
  "$TRAK" query "$WORK/$f.json" "SELECT 1" >"$WORK/$f.out" 2>&1 && { echo "FAIL: $f read"; fail=1; }
  expect_lines "$WORK/$f.out" "UTF-16 text at byte 0, a JSON trace saved as UTF-16? trak reads UTF-8: convert it with iconv -f UTF-16 -t UTF-8"
done

# ---- 7. timestamps at the int64 extremes: trak html spans them without overflow (UBSan)
echo '{"traceEvents":[{"name":"a","ph":"i","ts":-9223372036854775,"pid":1,"tid":1},{"name":"b","ph":"i","ts":9223372036854775,"pid":1,"tid":1}]}' >"$WORK/wide.json"
"$TRAK" html "$WORK/wide.json" -o "$WORK/wide.html" >"$WORK/wide.out" 2>&1 && [ -s "$WORK/wide.html" ] ||
  { echo "FAIL: html of a trace spanning the int64 range:"; cat "$WORK/wide.out"; fail=1; }

[ $fail = 0 ] || exit 1
echo "hostile traces cost memory and time in proportion to their size"
