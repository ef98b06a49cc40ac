-- cpu_track: the slice tracks of one CPU (here the Irq Cpu N tracks, written by another machine,
-- machine_id 1001), with their cpu dimension as a column, joined with the cpu table as
-- Perfetto's tables/cpu_track_table_machine_id diff test does; the same as trace_processor_shell
-- v58.2 (scripts/oracle_diff.sh).
SELECT c.ucpu, ct.cpu, c.machine_id FROM cpu_track AS ct JOIN cpu AS c ON ct.machine_id IS c.machine_id AND ct.cpu = c.cpu ORDER BY ct.cpu;
SELECT id, name, type, parent_id, source_arg_set_id, machine_id, cpu FROM cpu_track ORDER BY id;
