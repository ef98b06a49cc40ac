-- prelude.trace_bounds: the first and last instants of the trace (start_ts, end_ts), filled by
-- the importer into _trace_bounds, and the functions reading them.

CREATE PERFETTO VIEW trace_bounds(start_ts TIMESTAMP, end_ts TIMESTAMP) AS
SELECT start_ts, end_ts FROM _trace_bounds;

CREATE PERFETTO FUNCTION trace_start() RETURNS TIMESTAMP AS
SELECT start_ts FROM _trace_bounds;

CREATE PERFETTO FUNCTION trace_end() RETURNS TIMESTAMP AS
SELECT end_ts FROM _trace_bounds;

CREATE PERFETTO FUNCTION trace_dur() RETURNS DURATION AS
SELECT end_ts - start_ts FROM _trace_bounds;
