-- Queries from Perfetto's PerfettoSQL getting-started page (docs/analysis/perfetto-sql-getting-started.md),
-- unchanged, on tests/data/psql/modules.json. getting_started.expected is trace_processor_shell's output.
SELECT ts, dur, name FROM slice LIMIT 10;
INCLUDE PERFETTO MODULE slices.with_context;
SELECT ts, dur, name, thread_name, process_name, tid, pid
FROM thread_slice
WHERE name = 'measure';
SELECT ts, dur, name, process_name, pid
FROM process_slice
WHERE name LIKE 'MyEvent%';
SELECT ts, dur, name, thread_name, process_name
FROM thread_or_process_slice
WHERE dur > 1000000;
SELECT tid, name
FROM thread
WHERE utid = 10;
SELECT upid
FROM counter
JOIN process_counter_track ON process_counter_track.id = counter.track_id
WHERE process_counter_track.name = 'mem.swap' AND value > 1000;
SELECT thread.name AS thread_name
FROM slice
JOIN thread_track ON slice.track_id = thread_track.id
JOIN thread USING(utid)
WHERE slice.name = 'measure'
GROUP BY thread_name;
INCLUDE PERFETTO MODULE time.conversion;
SELECT name, time_to_ms(dur) AS dur_ms
FROM slice
WHERE dur > time_from_ms(10);
SELECT name, time_to_us(dur) AS dur_us FROM slice WHERE dur > time_from_us(50) ORDER BY id;
