#!/usr/bin/env bash
# Systrace text import of a `trace` file recorded here from tracefs (root and tracefs; skipped
# otherwise): a program with known threads (tests/support/sched_workload.c) and atrace markers
# written to trace_marker are recorded with the kernel's own text output, then `trak query`
# reads the file (recognised without being told) into sched, thread_state, slices and counters:
# each thread runs under its name and tid, the sleeper sleeps (S) and is woken, the markers make
# a slice and a process counter, nothing fails to parse. The same text gzipped, inside an HTML
# systrace and inside a JSON trace's systemTraceEvents gives the same rows. tracefs is as it was
# afterwards.
set -euo pipefail
. "$(dirname "$0")/probes_common.bash"

echo 0 > $TRACEFS/tracing_on
echo 1024 > $TRACEFS/buffer_size_kb
echo > $TRACEFS/trace
for e in sched/sched_switch sched/sched_waking sched/sched_blocked_reason power/cpu_frequency \
         power/cpu_idle ftrace/print; do
  [ -e $TRACEFS/events/$e/enable ] && echo 1 > $TRACEFS/events/$e/enable
done
echo 1 > $TRACEFS/tracing_on
"$SCHED_WORKLOAD" > "$TMP/workload.out"
bash -c 'printf trak_marker > /proc/$$/comm
         echo "B|$$|trak_outer" > '$TRACEFS'/trace_marker
         echo "C|$$|trak_counter|42" > '$TRACEFS'/trace_marker
         sleep 0.01
         echo "E|$$" > '$TRACEFS'/trace_marker
         echo $$ > '$TMP'/marker.pid'
echo 0 > $TRACEFS/tracing_on
cat $TRACEFS/trace > "$TMP/trace.txt"
restore_found
echo > $TRACEFS/trace
check_restored "after recording"

read -r _ pid _ spin _ sleep < "$TMP/workload.out"
marker=$(cat "$TMP/marker.pid")
grep -q '^# tracer' "$TMP/trace.txt" || fail "tracefs' trace has no '# tracer' header"

# Rows the checks compare, one query per line of output.
QUERY="
select 'threads', group_concat(tid || ':' || name, ' ') from (select distinct tid, name
  from thread where tid in ($spin, $sleep) order by tid);
select 'ran', count(distinct tid) from sched join thread using (utid) where tid in ($spin, $sleep);
select 'sleeps', count(*) from thread_state join thread using (utid) where tid = $sleep and
  state = 'S' and dur > 0;
select 'woken', count(*) from thread_state join thread using (utid) where tid = $sleep and
  state = 'R' and waker_utid is not null;
select 'slice', slice.name, dur > 0, tid from slice join thread_track on slice.track_id =
  thread_track.id join thread using (utid) where slice.name = 'trak_outer';
select 'counter', value, pid from counter join process_counter_track t on counter.track_id =
  t.id join process using (upid) where t.name = 'trak_counter';
select 'sched', count(*), count(distinct cpu) from sched;
select 'failures', value from stats where name = 'systrace_parse_failure';
select 'type', str_value from metadata where name = 'trace_type';"
"$TRAK" query "$TMP/trace.txt" -q <(echo "$QUERY") --format csv > "$TMP/text.csv" 2> "$TMP/err.txt" ||
  fail "query: $(cat "$TMP/err.txt")"
python3 - "$TMP/text.csv" "$spin" "$sleep" "$marker" <<'PY' || fail "text: $(cat "$TMP/text.csv")"
import csv, sys
path, spin, sleep, marker = sys.argv[1], *map(int, sys.argv[2:])
labels = {'threads', 'ran', 'sleeps', 'woken', 'slice', 'counter', 'sched', 'failures', 'type'}
rows = {r[0]: r[1:] for r in csv.reader(open(path)) if r and r[0] in labels}
assert rows['threads'][0] == '%d:trak_spin %d:trak_sleep' % (spin, sleep), rows['threads']
# This kernel does not always trace a switch out of the idle task (an idle CPU woken by the
# sleeper's timer): a thread may have no sched row at all, so one of the two must have run.
assert int(rows['ran'][0]) >= 1, rows['ran']
# The sleeper sleeps 3 x 80 ms; the kernel may skip a switch of it (#26), so at least one.
assert int(rows['sleeps'][0]) >= 1, rows['sleeps']
assert int(rows['woken'][0]) >= 1, rows['woken']
assert rows['slice'] == ['trak_outer', '1', str(marker)], rows['slice']
assert float(rows['counter'][0]) == 42 and int(rows['counter'][1]) == marker, rows['counter']
assert int(rows['sched'][0]) > 0, rows['sched']
assert rows['failures'] == ['0'], rows['failures']
assert rows['type'] == ['systrace'], rows['type']
PY

# The same text gzipped, in an HTML systrace, and in a JSON trace gives the same rows.
gzip -c "$TMP/trace.txt" > "$TMP/trace.txt.gz"
{
  printf '<!DOCTYPE html>\n<html>\n<script class="trace-data" type="application/text">\n'
  cat "$TMP/trace.txt"
  printf '</script>\n</html>\n'
} > "$TMP/trace.html"
python3 -c 'import json, sys; json.dump({"traceEvents": [], "systemTraceEvents":
  open(sys.argv[1]).read()}, open(sys.argv[2], "w"))' "$TMP/trace.txt" "$TMP/trace.json"
for form in trace.txt.gz trace.html trace.json; do
  "$TRAK" query "$TMP/$form" -q <(echo "$QUERY") --format csv > "$TMP/$form.csv" 2> "$TMP/err.txt" ||
    fail "$form: $(cat "$TMP/err.txt")"
  # The JSON trace says it is one; the rest is the same.
  diff <(grep -v '^type,' "$TMP/text.csv") <(grep -v '^type,' "$TMP/$form.csv") ||
    fail "$form differs from the text file"
done
echo "ok: systrace text from tracefs ($(wc -l < "$TMP/trace.txt") lines) imports"
