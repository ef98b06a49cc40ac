-- The function graph tracer's funcgraph_entry and funcgraph_exit events with symbolize_ksyms: func
-- is a kernel-function field (an iid of InternedData.kernel_symbols, its symbol as a string arg;
-- an unknown iid stays a uint), and each failed lookup counts in interned_data_tokenizer_errors:
-- the raw row's and, for an entry, the one Perfetto's slice naming makes (trak makes raw rows
-- only, no funcgraph slices). Checked with scripts/oracle_diff.sh against trace_processor_shell
-- v58.2.
SELECT e.ts, e.name, a.key, a.value_type, a.int_value, a.string_value FROM ftrace_event e JOIN args a USING (arg_set_id) ORDER BY e.ts, a.id;
SELECT name, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' ORDER BY name;
