-- The query set for traces written by Perfetto's own SDKs (C++ client API, C libperfetto_c), run
-- through trak and Perfetto's trace_processor_shell with QUERIES=scripts/sdk_queries.sql
-- scripts/chrome_diff.sh TRACE. Every row of the small tables, arg sets compared by content
-- (arg_set_id numbers aside); stats trak counts and Perfetto does not (docs/processor.md) left out.
select (select count(*) from slice) slices, (select count(*) from thread) threads, (select count(*) from process) processes, (select count(*) from track) tracks, (select count(*) from args) args, (select count(*) from flow) flows, (select count(*) from counter) counters;
select id, ts, dur, depth, parent_id, name, category, track_id, thread_ts, thread_dur, arg_set_id is not null has_args from slice order by id;
select id, name, type, parent_id, dimension_arg_set_id is not null has_dim, source_arg_set_id is not null has_src from track order by id;
select utid, tid, name, upid, is_main_thread from thread order by utid;
select upid, pid, name, parent_upid, cmdline from process order by upid;
select t.id, t.type, a.key, a.display_value from track t join args a on a.arg_set_id = t.dimension_arg_set_id order by t.id, a.key;
select t.id, t.type, a.key, a.display_value from track t join args a on a.arg_set_id = t.source_arg_set_id order by t.id, a.key;
select id, name, type, unit, parent_id from counter_track order by id;
select id, ts, track_id, value from counter order by id;
select slice_out, slice_in, trace_id, arg_set_id is not null from flow order by slice_out, slice_in;
select s.id, a.flat_key, a.key, a.value_type, a.int_value, a.string_value, a.real_value, a.display_value from slice s join args a using (arg_set_id) order by s.id, a.key;
select p.pid, a.key, a.display_value from process p join args a using (arg_set_id) order by p.pid, a.key;
select t.tid, a.key, a.display_value from thread t join args a using (arg_set_id) order by t.tid, a.key;
select name, idx, severity, source, value from stats where value > 0 and name not like "%_duration_ns" and name not in ("clock_sync_cache_miss", "slice_unterminated", "track_timestamp_decreasing", "sequence_packet_loss") order by name, idx;
select name, key_type, int_value, str_value from metadata where name not in ('trace_size_bytes') order by name;
select id, ts, dur, track_id, name from slice where dur = 0 order by id;
select flat_key, key, value_type, display_value, count(*) from args where arg_set_id not in (select arg_set_id from slice where arg_set_id is not null) group by 1, 2, 3, 4 order by key, display_value;
select c.id, a.key, a.value_type, a.display_value from counter c join args a using (arg_set_id) order by c.id, a.key;
select t.id, t.name, a.key, a.display_value from track t join args a on a.arg_set_id = t.source_arg_set_id order by t.id, a.key;
