-- options: --allow-empty
-- CpuInfo with a capacity on every CPU: clusters by capacity (equal capacities share one), and,
-- as Perfetto writes them in capacity order, the frequency rows and arg sets of the smallest
-- CPUs come first (ties in CPU order); an empty arm_identifier still gives its five args (0).
-- The same as trace_processor_shell v58.2.
SELECT * FROM cpu;
SELECT * FROM cpu_available_frequencies;
SELECT c.cpu, a.key, a.value_type, a.int_value FROM cpu c JOIN args a USING (arg_set_id) ORDER BY c.cpu, a.id;
