-- The clock_snapshot table as trace_processor_shell v58.2 fills it (answer written down from it,
-- checked with scripts/oracle_diff.sh): a row per clock of each snapshot it takes, ts the
-- snapshot's instant in trace time (BOOTTIME), clock_value the clock's value in ns (10 us of
-- clock 64 is 10000), clock_id as in the trace (a sequence's 64 and 65 without their sequence),
-- names for the builtin clocks only; the incremental clock's row converts its current value;
-- the snapshot without BOOTTIME converts through MONOTONIC; REALTIME going back cannot be
-- converted any more and takes the snapshot's BOOTTIME; a refused snapshot has no rows but
-- counts in snapshot_id.
SELECT * FROM clock_snapshot;
SELECT snapshot_id, COUNT(*) AS clocks, MIN(ts) = MAX(ts) AS one_instant FROM clock_snapshot GROUP BY snapshot_id ORDER BY snapshot_id;
