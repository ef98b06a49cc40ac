#!/usr/bin/env bash
# The processor on a recording of this machine (root and tracefs; skipped otherwise): `trak
# record --sched` (compact_sched) and `--full-sched` (typed events) of a program with known
# threads (tests/support/sched_workload.c), imported into sched, thread_state, cpu, raw and the
# per-CPU ftrace stats: each thread's rows are under one utid with its name.
set -euo pipefail
. "$(dirname "$0")/probes_common.bash"
start_daemon
start_probes

q() { "$TRAK" query "$TMP/t.pb" "$1" 2>/dev/null | tail -n +2; }
for form in --full-sched --sched; do
  "$TRAK" record $form --time 3s -o "$TMP/t.pb" 2> "$TMP/record.log" & rec=$!
  wait_recording || fail "$form: the recording did not start: $(cat "$TMP/record.log")"
  sleep 1
  "$SCHED_WORKLOAD" > "$TMP/workload.out"
  wait $rec || fail "$form: record: $(cat "$TMP/record.log")"
  check_restored "$form"
  read -r _ pid _ spin _ sleep < "$TMP/workload.out"
  # one thread row per tid of the workload, named as the kernel named it
  [ "$(q "select count(*) from thread where tid = $spin")" = 1 ] || fail "$form: spinner rows"
  [ "$(q "select name from thread where tid = $spin")" = '"trak_spin"' ] \
    || fail "$form: spinner name $(q "select name from thread where tid = $spin")"
  n=$(q "select count(*) from sched join thread using (utid) where tid = $spin")
  [ "$n" -ge 1 ] || fail "$form: no sched slice of the spinner"
  n=$(q "select count(*) from thread_state join thread using (utid) where tid = $sleep and state = 'Running'")
  [ "$n" -ge 1 ] || fail "$form: no Running state of the sleeper"
  n=$(q "select count(*) from thread_state join thread using (utid) where tid = $sleep and state = 'S'")
  [ "$n" -ge 1 ] || fail "$form: no sleeping state of the sleeper"
  # every sched slice is on a CPU of the cpu table, and the switches are raw rows too
  [ "$(q "select count(*) from sched where ucpu not in (select id from cpu)")" = 0 ] \
    || fail "$form: sched slices off the cpu table"
  [ "$(q "select count(*) from raw where name = 'sched_switch'")" -ge "$(q "select count(*) from sched where dur >= 0")" ] \
    || fail "$form: fewer raw sched_switch rows than closed slices"
  [ "$(q "select count(*) from stats where name = 'ftrace_cpu_entries_end'")" -ge 1 ] \
    || fail "$form: no per-CPU ftrace stats"
  echo "$form ok: $(q "select count(*) from sched") sched slices, $(q "select count(*) from thread_state") states"
done
kill "$PROBES"; wait "$PROBES" || true
check_restored "after probes"
echo "linux_import ok"
