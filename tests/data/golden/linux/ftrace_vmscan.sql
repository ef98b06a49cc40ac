-- trace_processor_shell v58.2's answers (checked with scripts/oracle_diff.sh):
-- mm_vmscan_direct_reclaim_begin begins "mm_vmscan_direct_reclaim" (no category) on the thread's
-- track with args direct_reclaim_order, direct_reclaim_may_writepage (int),
-- direct_reclaim_gfp_flags (uint); _end ends the innermost open slice, adding
-- direct_reclaim_nr_reclaimed (uint); an end with nothing open (tid 31) is ignored.
-- mm_shrink_slab_start begins "mm_vmscan_shrink_slab" (args shrink_name: the shrinker's address,
-- total_scan, priority), _end adds freed (its retval). Each shrinker lookup, and the shrink field
-- of a raw row, counts interned_data_tokenizer_errors (no kernel symbols: 2 + 2).
-- kswapd, compaction, filemap and f2fs events are rows with their fields as args only.
SELECT s.id, s.ts, s.dur, s.name, s.category, s.depth, t.name AS track, t.type, th.tid FROM slice s JOIN thread_track t ON s.track_id = t.id JOIN thread th USING (utid) ORDER BY s.id;
SELECT s.id, a.key, a.value_type, a.int_value, a.string_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.id, a.key;
SELECT name, count(*) AS n FROM ftrace_event GROUP BY name ORDER BY name;
SELECT f.name, a.key, a.value_type, a.int_value, a.string_value FROM ftrace_event f JOIN args a USING (arg_set_id) WHERE f.name IN ('mm_compaction_end', 'mm_filemap_add_to_page_cache', 'f2fs_sync_fs', 'mm_shrink_slab_start') ORDER BY f.ts, a.key;
SELECT count(*) AS args FROM args;
SELECT name, value FROM stats WHERE name IN ('interned_data_tokenizer_errors', 'ftrace_packet_before_tracing_start', 'misplaced_end_event') ORDER BY name;
