-- The fixed query set scripts/chrome_diff.sh runs on a Chromium protobuf trace through trak and
-- Perfetto's trace_processor_shell. One statement per ';'-ended line group; each is a question a
-- user asks of a Chromium startup trace, summarised so that a difference shows in a few lines.
select (select count(*) from slice) slices, (select count(*) from thread) threads, (select count(*) from process) processes, (select count(*) from track) tracks, (select count(*) from args) args, (select count(*) from flow) flows, (select count(*) from counter) counters;
select count(*), sum(dur), sum(depth), count(parent_id), count(arg_set_id), count(distinct track_id), count(thread_ts), sum(thread_dur) from slice;
select name, category, count(*) n, sum(dur), sum(depth), count(parent_id), count(arg_set_id) from slice group by 1, 2 order by n desc, 1, 2 limit 60;
select ts, dur, name, depth, track_id, parent_id, arg_set_id is not null from slice order by ts, id limit 40;
select utid, tid, name, upid, is_main_thread from thread order by utid;
select upid, pid, name, parent_upid, cmdline from process order by upid;
select p.pid, a.key, a.display_value from process p join args a using (arg_set_id) order by p.pid, a.key;
select t.tid, a.key, a.display_value from thread t join args a using (arg_set_id) order by t.tid, a.key;
select type, count(*), count(parent_id), count(name), count(dimension_arg_set_id), count(source_arg_set_id) from track group by type order by type;
select t.type, a.key, count(*) from track t join args a on a.arg_set_id = t.source_arg_set_id group by 1, 2 order by 1, 2;
select t.type, a.key, count(*) from track t join args a on a.arg_set_id = t.dimension_arg_set_id group by 1, 2 order by 1, 2;
select name, type, count(*) from track group by 1, 2 order by 3 desc, 1, 2 limit 50;
select flat_key, value_type, count(*) from args where arg_set_id in (select arg_set_id from slice) group by 1, 2 order by 1, 2;
select a.key, a.value_type, a.display_value from slice s join args a using (arg_set_id) where s.arg_set_id in (select arg_set_id from slice where name not like '%Mojo%' group by name) order by s.name, s.ts, a.key limit 200;
select count(*), count(distinct slice_out), count(distinct slice_in), count(trace_id), count(arg_set_id) from flow;
select so.name, si.name, count(*) from flow f join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in group by 1, 2 order by 3 desc, 1, 2 limit 30;
select name, type, unit, count(*) from counter_track group by 1, 2, 3 order by 1, 2, 3;
select t.name, count(*), sum(c.value), min(c.value), max(c.value) from counter c join counter_track t on t.id = c.track_id group by 1 order by 1;
select count(*), count(distinct track_id), count(arg_set_id), count(thread_ts) from slice where dur = 0;
select name, idx, severity, source, value from stats where value > 0 and name not like '%_duration_ns' order by name, idx;
