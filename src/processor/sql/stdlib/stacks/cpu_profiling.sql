-- stacks.cpu_profiling: the CPU profilers' samples with a callstack, and their callstacks as
-- one tree.
--   cpu_profiling_samples: id, ts, utid, tid, thread_name, ucpu, cpu, callsite_id, source
--     ('linux.perf' for perf_sample rows, 'chrome' for cpu_profile_stack_sample rows), in time
--     order; perf sessions sampling on something other than time, cycles or instructions (a
--     tracepoint, page faults: their timebase counts events) are left out.
--   cpu_profiling_summary_tree: id, parent_id, name, mapping_name, source_file, line_number,
--     self_count (samples whose leaf the node is), cumulative_count (samples with the node on
--     their stack).
-- A sample's id is its row's in its own table (perf_sample or cpu_profile_stack_sample): a
-- trace with both kinds has ids from both.

INCLUDE PERFETTO MODULE callstacks.stack_profile;

CREATE PERFETTO TABLE cpu_profiling_samples(
  id LONG,
  ts TIMESTAMP,
  utid JOINID(thread.id),
  tid LONG,
  thread_name STRING,
  ucpu LONG,
  cpu LONG,
  callsite_id LONG,
  source STRING
) AS
SELECT s.id, s.ts, s.utid, t.tid, t.name AS thread_name, s.ucpu, s.cpu, s.callsite_id, s.source
FROM (
  SELECT p.id, p.ts, p.utid, c.id AS ucpu, p.cpu, p.callsite_id, 'linux.perf' AS source
  FROM perf_sample AS p
  LEFT JOIN __intrinsic_profiler_session AS ps ON ps.id = p.perf_session_id
  LEFT JOIN cpu AS c ON c.cpu = p.cpu AND coalesce(c.machine_id, 0) = 0
  WHERE p.callsite_id IS NOT NULL
    AND (ps.timebase_unit IS NULL OR ps.timebase_unit IN ('ns', 'cycles', 'instructions'))
  UNION ALL
  SELECT id, ts, utid, NULL, NULL, callsite_id, 'chrome'
  FROM cpu_profile_stack_sample
  WHERE callsite_id IS NOT NULL
) AS s
LEFT JOIN thread AS t USING (utid)
ORDER BY s.ts;

CREATE PERFETTO TABLE _cpu_profiling_self_callsites AS
SELECT * FROM _callstacks_for_callsites!((SELECT callsite_id FROM cpu_profiling_samples))
ORDER BY id;

CREATE PERFETTO TABLE cpu_profiling_summary_tree(
  id LONG,
  parent_id LONG,
  name STRING,
  mapping_name STRING,
  source_file STRING,
  line_number LONG,
  self_count LONG,
  cumulative_count LONG
) AS
SELECT id, parent_id, name, mapping_name, source_file, line_number,
  sum(self_count) AS self_count, sum(cumulative_count) AS cumulative_count
FROM _callstacks_with_cumulative!(_cpu_profiling_self_callsites)
GROUP BY id;
