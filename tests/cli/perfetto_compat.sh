#!/usr/bin/env bash
# Programs written against Perfetto's SDK API (tests/cxx/perfetto_*.cc: the getting-started
# program, the calls of the track-event guide, startup tracing), built against <trak/perfetto.h> with
# -std=c++17 -Wpedantic, run; their traces are checked through the processor (`trak query`):
# slices and nesting, arguments (nested keys as Perfetto shows them), counters with units,
# tracks, flows, category config.
set -euo pipefail
TRAK=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$TRAK_BINARY_DIR"
fail=0

# expect TRACE 'SQL' 'ROWS': the CSV rows of SQL (without the header) are ROWS.
expect() {
  local got
  got=$("$TRAK" query "$1" "$2" --format csv | tail -n +2)
  if [ "$got" != "$3" ]; then
    printf 'FAIL: %s\n  want: %s\n  got:  %s\n' "$2" "$3" "$got"
    fail=1
  fi
}

(cd "$tmp" && "$bin/perfetto_getting_started" "$tmp/gs.pftrace")
"$TRAK" check "$tmp/gs.pftrace" | grep -q ' 0 errors, 0 warnings'
expect "$tmp/gs.pftrace" "select name, depth, dur > 0 from slice order by ts" \
  "Start,0,0
Frame,0,1
Paint,1,1
Paint,1,1
Frame,0,1
Paint,1,1
Paint,1,1
Stop,0,0"
expect "$tmp/gs.pftrace" "select display_value from args join slice using (arg_set_id) where slice.name = 'Paint' and key = 'debug.player' order by slice.ts" \
  "1
2
1
2"
expect "$tmp/gs.pftrace" "select t.name, count(*), cast(max(c.value) as int) from counter c join counter_track t on c.track_id = t.id group by t.name" \
  "FramesPerSecond,2,60"
expect "$tmp/gs.pftrace" "select name from process where name is not null" "GettingStarted"

(cd "$tmp" && "$bin/perfetto_track_events" "$tmp/te.pftrace")
"$TRAK" check "$tmp/te.pftrace" | grep -q ' 0 errors, 0 warnings'
expect "$tmp/te.pftrace" "select key, display_value from args join slice using (arg_set_id) where slice.name = 'Args' and key not like '%pointer' order by key" \
  "debug.bool,true
debug.cstr,const char* value
debug.double,2.5
debug.enum,7
debug.float,0.25
debug.int,-5
debug.int64,1099511627776
debug.literal,literal value
debug.string,std::string value
debug.temp,temporary value
debug.uint,7
debug.view,string_view value"
expect "$tmp/te.pftrace" "select count(*) from args join slice using (arg_set_id) where slice.name = 'Args' and key = 'debug.pointer' and display_value like '0x%'" "1"
expect "$tmp/te.pftrace" "select key, display_value from args join slice using (arg_set_id) where slice.name = 'Nested' order by key" \
  "debug.list[0],1
debug.list[1],2
debug.list[2],3
debug.none,NULL
debug.owned.x,5
debug.owned.y,6
debug.point.x,3
debug.point.y,4
debug.size[0],640
debug.size[1],480
debug.weights.a,0.5
debug.weights.b,1.5"
expect "$tmp/te.pftrace" "select slice.name, key, display_value from args join slice using (arg_set_id) where slice.name like '%Lambda' order by slice.name, key" \
  "ArgsAndLambda,debug.first,1
ArgsAndLambda,debug.second,2
Lambda,debug.dyn_key,dyn
Lambda,debug.from_lambda,42
Lambda,debug.lambda_point.x,3
Lambda,debug.lambda_point.y,4"
# Typed fields written in lambdas through ctx.event().
expect "$tmp/te.pftrace" "select key, display_value from args join slice using (arg_set_id) where slice.name = 'Typed' order by key" \
  "debug.after,1
debug.key,value
debug.nested[0],4
debug.nested[1],5
debug.num,-3
debug.real,1.5"
expect "$tmp/te.pftrace" "select count(*), max(dur > 0) from slice where name = 'NamedInLambda'" "1,1"
expect "$tmp/te.pftrace" "select o.name, i.name from flow f join slice o on f.slice_out = o.id join slice i on f.slice_in = i.id where o.name like 'Typed%'" \
  "TypedFlowOut,TypedFlowIn"
# Names and categories: dynamic and static names, a dynamic category, a debug-tagged category
# the config enables, a group; the "off" category and "io" outside the group stay out.
expect "$tmp/te.pftrace" "select name, category from slice where name in ('Dynamic7', 'StaticA', 'InDynamicCategory', 'DebugTagged', 'InGroup', 'Never') order by ts" \
  "Dynamic7,rendering
StaticA,rendering
InDynamicCategory,dynamic.cat
DebugTagged,network.debug
InGroup,\"rendering,io\""
expect "$tmp/te.pftrace" "select t.name, coalesce(t.unit, ''), group_concat(cast(c.value as int), ' ') from (select * from counter order by ts) c join counter_track t on c.track_id = t.id group by t.name order by t.name" \
  "Earlier,\"\",11
Framerate,fps,60 61 62
Memory,bytes,4096
Queue,\"\",1 2 3"
# Tracks: the async slice ends on its track from another thread; named tracks; thread track.
expect "$tmp/te.pftrace" "select s.name, s.dur > 0, coalesce(t.name, '') from slice s join track t on s.track_id = t.id where s.name in ('Request', 'OnNamed', 'Timed', 'ScopedOnTrack') order by s.name" \
  "OnNamed,0,Uploads
OnNamed,0,Uploads
Request,1,Request
ScopedOnTrack,1,ScopedOnTrack
Timed,1,Timed"
# Two NamedTracks of one name under one parent merge into one, as in Perfetto's processor.
expect "$tmp/te.pftrace" "select count(distinct track_id) from slice where name = 'OnNamed'" "1"
expect "$tmp/te.pftrace" "select dur from slice where name = 'Timed'" "1000000"
expect "$tmp/te.pftrace" "select i.ts - t.ts from slice i, slice t where i.name = 'TimedInstant' and t.name = 'Timed'" "500000"
expect "$tmp/te.pftrace" "select thread_slice.name from slice thread_slice join thread_track t on thread_slice.track_id = t.id where thread_slice.name = 'OnThread'" "OnThread"
expect "$tmp/te.pftrace" "select o.name, i.name from flow f join slice o on f.slice_out = o.id join slice i on f.slice_in = i.id where o.name = 'FlowStart'" \
  "FlowStart,FlowEnd"
# Startup tracing: events before the session (a slice ending after it started, a counter)
# are adopted by it; "io" stays out by the startup config.
(cd "$tmp" && "$bin/perfetto_startup" "$tmp/st.pftrace")
"$TRAK" check "$tmp/st.pftrace" | grep -q ' 0 errors, 0 warnings'
expect "$tmp/st.pftrace" "select name, depth, dur > 0 from slice order by ts" \
  "Startup,0,1
LoadAsset,1,1
LoadAsset,1,1
LoadAsset,1,1
Running,0,0"
expect "$tmp/st.pftrace" "select t.name, cast(c.value as int) from counter c join counter_track t on c.track_id = t.id" \
  "AssetsLoaded,3"
[ "$fail" = 0 ] || exit 1
echo "ok: Perfetto SDK programs built against <trak/perfetto.h> write the expected traces"
