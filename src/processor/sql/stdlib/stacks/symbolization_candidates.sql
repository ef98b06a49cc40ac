-- stacks.symbolization_candidates: the frames a symbolizer could name, per process.
--   _to_breakpad_module(mapping, build_id): for Chrome's libraries (libmonochrome, libchrome,
--     libwebviewchromium, the linker) with a build id of 40 hex digits or more, the module id
--     Breakpad symbol files are named by; NULL otherwise.
--   _stacks_symbolization_candidates: upid, module, build_id, rel_pc, breakpad_module_id: each
--     unsymbolized frame (no symbol set) on the CPU profiles' and the heap profiles'
--     callstacks whose mapping has a build id.

INCLUDE PERFETTO MODULE stacks.cpu_profiling;

CREATE PERFETTO FUNCTION _to_breakpad_module(mapping STRING, build_id STRING)
RETURNS STRING AS
SELECT
  CASE
    WHEN (($mapping GLOB '*libmonochrome_64.so'
      OR $mapping GLOB '*libchrome.so'
      OR $mapping GLOB '*libmonochrome.so'
      OR $mapping GLOB '*libwebviewchromium.so'
      OR $mapping GLOB '*libchromium_android_linker.so')
      AND length($build_id) >= 40)
    THEN (substr($build_id, 7, 2) || substr($build_id, 5, 2) || substr($build_id, 3, 2)
      || substr($build_id, 1, 2) || substr($build_id, 11, 2) || substr($build_id, 9, 2)
      || substr($build_id, 15, 2) || substr($build_id, 13, 2) || substr($build_id, 17, 16)
      || '0')
    ELSE NULL
  END;

CREATE PERFETTO TABLE _stacks_symbolization_candidates(
  upid JOINID(process.id),
  module STRING,
  build_id STRING,
  rel_pc LONG,
  breakpad_module_id STRING
) AS
WITH RECURSIVE
  sampled AS (
    SELECT DISTINCT upid, callsite_id FROM cpu_profiling_samples JOIN thread USING (utid)
    UNION
    SELECT DISTINCT upid, callsite_id FROM heap_profile_allocation
  ),
  -- every callsite on a sampled stack: the sampled one and its ancestors
  on_stack(upid, callsite_id) AS (
    SELECT upid, callsite_id FROM sampled
    UNION
    SELECT o.upid, c.parent_id
    FROM on_stack AS o JOIN stack_profile_callsite AS c ON c.id = o.callsite_id
    WHERE c.parent_id IS NOT NULL
  ),
  frames AS (
    SELECT DISTINCT o.upid, spf.mapping AS mapping_id, spf.rel_pc
    FROM on_stack AS o
    JOIN stack_profile_callsite AS c ON c.id = o.callsite_id
    JOIN stack_profile_frame AS spf ON spf.id = c.frame_id
    WHERE spf.symbol_set_id IS NULL
  )
SELECT f.upid, m.name AS module, m.build_id, f.rel_pc,
  _to_breakpad_module(m.name, m.build_id) AS breakpad_module_id
FROM frames AS f
JOIN stack_profile_mapping AS m ON f.mapping_id = m.id
WHERE m.build_id != '';
