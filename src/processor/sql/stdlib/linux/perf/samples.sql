-- linux.perf.samples: the callstacks of perf's samples (perf_sample) as one tree.
--   linux_perf_samples_summary_tree: id, parent_id, name, mapping_name, source_file,
--     line_number, self_count (samples whose leaf the node is), cumulative_count (samples with
--     the node on their stack).

INCLUDE PERFETTO MODULE callstacks.stack_profile;

CREATE PERFETTO TABLE _linux_perf_raw_callstacks AS
SELECT * FROM _callstacks_for_callsites!((SELECT p.callsite_id FROM perf_sample p)) AS c
ORDER BY c.id;

CREATE PERFETTO INDEX _linux_perf_raw_callstacks_parent_id_idx ON _linux_perf_raw_callstacks(
  parent_id
);

CREATE PERFETTO TABLE linux_perf_samples_summary_tree(
  id LONG,
  parent_id LONG,
  name STRING,
  mapping_name STRING,
  source_file STRING,
  line_number LONG,
  self_count LONG,
  cumulative_count LONG
) AS
SELECT * FROM _callstacks_with_cumulative!(_linux_perf_raw_callstacks)
ORDER BY id;
