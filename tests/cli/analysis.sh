#!/bin/bash
# Golden tests of trace analysis (docs/analysis.md) over tests/data/analysis/app.pbtxt:
# describe_slice in both query shapes of the seed, built-in and --descriptions rules (ancestor,
# parent, thread and process matching), metrics (built-in, INCLUDE, PARAM values as literals,
# errors with file and line), nested / instant / counter / thread-scoped annotations, alerts
# with the exit codes of --fail-on, and the annotate round trip. Each case's stdout, stderr and
# exit status must equal tests/data/analysis/golden/CASE.out; TRAK_UPDATE_GOLDEN=1 rewrites the
# golden files instead.
set -u
TRAK=$1
DATA=$TRAK_SOURCE_DIR/tests/data/analysis
GOLDEN=$DATA/golden
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
APP=$DATA/app.pbtxt
M="--metrics-dir metrics"
fail=0

# check NAME COMMAND...: runs COMMAND with the working directory in $DATA (so paths in
# messages are stable) and compares its output with the golden file.
check() {
  local name=$1
  shift
  (cd "$DATA" && "$@") >"$WORK/out" 2>"$WORK/err"
  local status=$?
  { cat "$WORK/out"; sed 's/^/stderr: /' "$WORK/err"; echo "exit: $status"; } >"$WORK/$name.out"
  if [ "${TRAK_UPDATE_GOLDEN:-0}" = 1 ]; then
    mkdir -p "$GOLDEN" && cp "$WORK/$name.out" "$GOLDEN/$name.out"
  elif ! diff -u "$GOLDEN/$name.out" "$WORK/$name.out"; then
    echo "FAIL $name"
    fail=1
  fi
}

# Descriptions: the seed's two query shapes; slice 1 (traversal) has no rule and no row.
check describe_one "$TRAK" query app.pbtxt \
  'select description, doc_link from describe_slice where slice_id = 3'
check describe_none "$TRAK" query app.pbtxt \
  'select description, doc_link from describe_slice where slice_id = 1'
check describe_join "$TRAK" query app.pbtxt \
  'select s.id, s.name, d.description, d.doc_link from slice s join describe_slice d
   on s.id = d.slice_id order by s.id'
check describe_rules "$TRAK" query app.pbtxt --descriptions rules.pbtxt \
  'select s.id, s.name, d.description from slice s join describe_slice d on s.id = d.slice_id
   where s.name in ("inflate", "traversal", "DrawFrame") order by s.id'
check describe_bad_rules "$TRAK" query app.pbtxt --descriptions bad_rules.pbtxt 'select 1'
check describe_check "$TRAK" check app.pbtxt --descriptions rules.pbtxt
check describe_export_bad "$TRAK" export app.pbtxt --descriptions bad_rules.pbtxt "$WORK/x.db"
check describe_shell bash -c "echo 'select description from describe_slice where slice_id = 1;' |
  '$TRAK' shell app.pbtxt --descriptions=rules.pbtxt"

# Metrics.
check metrics_builtin "$TRAK" metrics app.pbtxt --format csv \
  --run slice_stats,longest_slices,counter_stats,flow_latency,long_slices
check metrics_text "$TRAK" metrics app.pbtxt --run counter_stats,flow_latency
check metrics_json "$TRAK" metrics app.pbtxt --run longest_slices --param top=1 --format json
check metrics_include "$TRAK" metrics app.pbtxt $M --run frames,frame_list --param min_dur=10000000
# A parameter is one literal: "0 OR 1=1" is a string (every dur compares below it: no frames),
# a negative number stays a number, and a quote can't end the literal.
check metrics_param_literal "$TRAK" metrics app.pbtxt $M --run frame_list \
  --param "min_dur=0 OR 1=1"
check metrics_param_negative "$TRAK" metrics app.pbtxt $M --run frame_list --param min_dur=-1
check metrics_param_quote "$TRAK" query app.pbtxt $M --run frame_list \
  --param "min_dur=0'; DROP TABLE slice; --" 'select count(*) as slices from slice'
check metrics_error "$TRAK" metrics app.pbtxt $M --run broken
check metrics_unknown "$TRAK" metrics app.pbtxt $M --run nope
check metrics_cycle "$TRAK" metrics app.pbtxt $M --run loop_a
check metrics_bad_alert "$TRAK" metrics app.pbtxt $M --run bad_alert

# Annotations in the trace model, next to the trace's own tracks.
check annotations "$TRAK" query app.pbtxt $M --run frames,long_slices \
  'select * from annotation_track order by id;
   select s.id, s.track_id, s.ts, s.dur, s.name, s.depth, s.parent_id,
     extract_arg(s.arg_set_id, "annotation.source_slice_id") as source
   from slice s join annotation_track a on s.track_id = a.id order by s.id;
   select c.ts, c.value, t.name from counter c join track t on c.track_id = t.id
   where t.type = "annotation_counter_track" order by c.ts;
   select count(*) as slices_in_range from slice where ts >= 60000000 and ts < 61000000;
   select name, type from track order by id'

# Alerts and the exit status of --fail-on.
check alerts "$TRAK" alerts app.pbtxt --run long_slices
check alerts_fail_error "$TRAK" alerts app.pbtxt --run long_slices --fail-on error --format csv
check alerts_fail_warning "$TRAK" alerts app.pbtxt --run long_slices --fail-on warning \
  --param error_ns=1000000000 --format csv
check alerts_pass "$TRAK" alerts app.pbtxt --run long_slices --fail-on error \
  --param error_ns=1000000000 --format csv
check alerts_none "$TRAK" alerts app.pbtxt --run long_slices --fail-on warning \
  --param threshold_ns=1000000000 --format csv

# annotate: the copy re-imports with the annotation tracks as ordinary tracks, thread-scoped
# ones on their thread.
check annotate "$TRAK" annotate app.pbtxt $M --run frames,long_slices -o "$WORK/annotated.pb"
check annotate_reimport "$TRAK" query "$WORK/annotated.pb" \
  'select t.name as track, s.ts, s.dur, s.name, s.depth,
     extract_arg(s.arg_set_id, "debug.alert_type") as alert,
     extract_arg(s.arg_set_id, "debug.source_slice_id") as source
   from slice s join track t on s.track_id = t.id
   where extract_arg(t.source_arg_set_id, "description") like "annotation from %"
   order by t.id, s.ts, s.depth;
   select t.name, c.ts, c.value from counter c join track t on c.track_id = t.id
   where extract_arg(t.source_arg_set_id, "description") like "annotation from %" order by c.ts;
   select count(*) as trace_slices from slice s join track t on s.track_id = t.id
   where extract_arg(t.source_arg_set_id, "description") is null;
   select name, utid from thread_track where name is not null order by id'

# An annotation whose ts + dur passes int64 ends at INT64_MAX in the copy.
check annotate_far_end "$TRAK" annotate app.pbtxt $M --run far_end -o "$WORK/far.pb"
check annotate_far_end_reimport "$TRAK" query "$WORK/far.pb" \
  "select ts, dur, name, depth from slice where name in ('far', 'inside') order by ts"

# A metric without annotations leaves a binary (here gzipped) trace byte for byte as it was.
gzip -c "$WORK/annotated.pb" >"$WORK/annotated.pb.gz"
if ! "$TRAK" annotate "$WORK/annotated.pb.gz" --run slice_stats -o "$WORK/same.pb" ||
   ! cmp "$WORK/annotated.pb" "$WORK/same.pb"; then
  echo "FAIL annotate_passthrough"
  fail=1
fi

[ $fail = 0 ] && echo "all analysis tests pass"
exit $fail
