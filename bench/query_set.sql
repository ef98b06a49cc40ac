-- The query set of bench/query_bench (issue 29): everyday queries on the track-event traces of
-- bench/import_bench. Each query starts at its marker line (dash dash "query:" name); a block may hold several
-- statements (the rows of the last are the answer). Plain Perfetto SQL, so the same file can be
-- split and fed to Perfetto's trace_processor_shell (bench/query_side_by_side.py does, and compares
-- the answers).

-- query: count
SELECT COUNT(*) FROM slice;

-- query: group_by_name
SELECT name, COUNT(*) AS n FROM slice GROUP BY name ORDER BY n DESC, name LIMIT 10;

-- query: top_by_dur
SELECT id, dur FROM slice ORDER BY dur DESC, id LIMIT 10;

-- query: slice_thread_process
SELECT p.name, t.name, COUNT(*), SUM(s.dur) FROM slice s
JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t USING (utid) JOIN process p USING (upid)
GROUP BY 1, 2 ORDER BY 1, 2;

-- query: extract_arg
SELECT COUNT(*) FROM slice WHERE extract_arg(arg_set_id, 'debug.count') > 900;

-- query: time_window
SELECT COUNT(*), SUM(dur) FROM slice
WHERE ts BETWEEN (SELECT start_ts + (end_ts - start_ts) / 10 FROM trace_bounds)
  AND (SELECT start_ts + (end_ts - start_ts) / 5 FROM trace_bounds);

-- query: parent_join
SELECT p.name, COUNT(*) AS n FROM slice c JOIN slice p ON c.parent_id = p.id
GROUP BY p.name ORDER BY n DESC, p.name LIMIT 10;

-- query: counter_agg
SELECT track_id, COUNT(*), MIN(value), MAX(value), AVG(value) FROM counter
GROUP BY track_id ORDER BY track_id;

-- query: thread_slice
INCLUDE PERFETTO MODULE slices.with_context;
SELECT COUNT(*), SUM(dur), COUNT(thread_name), COUNT(process_name), MAX(tid), MAX(depth)
FROM thread_slice;

-- query: descendants
SELECT COUNT(*), SUM(d.dur), MAX(d.depth) FROM descendant_slice(
  (SELECT id FROM slice WHERE depth = 0 ORDER BY dur DESC, id LIMIT 1)) d;

-- query: track_window
SELECT COUNT(*), SUM(dur) FROM slice
WHERE track_id = (SELECT tt.id FROM thread_track tt JOIN thread USING (utid) WHERE tid = 1005)
  AND ts < (SELECT start_ts + (end_ts - start_ts) * 3 / 5 FROM trace_bounds)
  AND ts + dur > (SELECT start_ts + (end_ts - start_ts) / 2 FROM trace_bounds);

-- query: top_per_thread
INCLUDE PERFETTO MODULE slices.with_context;
SELECT utid, name, dur FROM (
  SELECT utid, name, dur, row_number() OVER (PARTITION BY utid ORDER BY dur DESC, id) AS rn
  FROM thread_slice)
WHERE rn <= 3 ORDER BY utid, rn;

-- query: span_join
-- (every top-level slice of the two threads, the unfinished ones with dur = -1 too)
CREATE OR REPLACE PERFETTO TABLE _sj_a AS
SELECT ts, dur, id AS a_id FROM slice
WHERE depth = 0 AND track_id = (SELECT tt.id FROM thread_track tt JOIN thread USING (utid) WHERE tid = 1005);
CREATE OR REPLACE PERFETTO TABLE _sj_b AS
SELECT ts, dur, id AS b_id FROM slice
WHERE depth = 0 AND track_id = (SELECT tt.id FROM thread_track tt JOIN thread USING (utid) WHERE tid = 1009);
DROP TABLE IF EXISTS _sj;
CREATE VIRTUAL TABLE _sj USING SPAN_JOIN(_sj_a, _sj_b);
SELECT COUNT(*), SUM(dur), MIN(ts), MAX(ts + dur), COUNT(DISTINCT a_id), COUNT(DISTINCT b_id) FROM _sj;

-- query: like_prefix
SELECT COUNT(*), SUM(dur) FROM slice WHERE name LIKE 'task::run_1%';

-- query: glob_prefix
SELECT COUNT(*), SUM(dur) FROM slice WHERE name GLOB 'Task::Run_1*';
