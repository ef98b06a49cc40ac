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
-- Questions 21 on read ids only through what they point at (tids, pids, names, keys), so that
-- a difference in how ids are numbered does not hide a difference in what was imported.
select t.tid, t.name, t.is_main_thread, p.pid from thread t left join process p using (upid) order by t.tid, t.name;
select p.pid, p.name, pp.pid, p.cmdline from process p left join process pp on pp.upid = p.parent_upid order by p.pid, p.name;
select th.tid, th.name, count(*), sum(s.dur), max(s.depth), count(s.parent_id), count(s.arg_set_id), sum(s.thread_dur) from slice s join thread_track tt on tt.id = s.track_id join thread th using (utid) group by th.tid, th.name order by th.tid, th.name;
select p.pid, t.type, count(*), sum(s.dur), max(s.depth), count(s.parent_id), count(s.arg_set_id) from slice s join process_track t on t.id = s.track_id join process p using (upid) group by p.pid, t.type order by p.pid, t.type;
select t.type, count(*), sum(s.dur), sum(s.depth), count(s.parent_id), count(s.arg_set_id), count(distinct s.name) from slice s join track t on t.id = s.track_id group by t.type order by t.type;
select depth, count(*), sum(dur), count(parent_id), count(arg_set_id) from slice group by depth order by depth;
select t.type, t.name, p.type, p.name, count(*) from track t left join track p on p.id = t.parent_id group by 1, 2, 3, 4 order by 5 desc, 1, 2, 3, 4 limit 60;
select a.key, a.value_type, count(*), count(distinct a.display_value) from slice s join args a using (arg_set_id) group by 1, 2 order by 1, 2;
select name, category, count(*), count(arg_set_id) from slice where dur = 0 group by 1, 2 order by 3 desc, 1, 2 limit 50;
select p.pid, t.name, t.type, count(*), sum(c.value), min(c.ts), max(c.ts) from counter c join process_counter_track t on t.id = c.track_id join process p using (upid) group by 1, 2, 3 order by 1, 2, 3;
select th.tid, t.name, t.type, count(*), sum(c.value), min(c.ts), max(c.ts) from counter c join thread_counter_track t on t.id = c.track_id join thread th using (utid) group by 1, 2, 3 order by 1, 2, 3;
select so.category, si.category, count(*), count(distinct f.trace_id), sum(si.ts - so.ts) from flow f join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in group by 1, 2 order by 3 desc, 1, 2 limit 40;
select s.name, s.ts, s.dur, a.key, a.display_value from slice s join args a using (arg_set_id) where a.key not like 'legacy_event.passthrough_utid' and a.key not like 'chrome_mojo_event_info.mojo_interface_method%' order by s.ts, s.name, a.key limit 300;
