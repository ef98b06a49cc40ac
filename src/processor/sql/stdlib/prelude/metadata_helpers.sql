-- prelude.metadata_helpers: one value of the metadata table by name, as Perfetto's
-- extract_metadata family: the first matching row's str_value, else its int_value; NULL when no
-- row matches or an argument is NULL.

-- The value of metadata `name` (the first row of that name).
CREATE PERFETTO FUNCTION extract_metadata(
  -- The metadata name, as in metadata.name.
  name STRING)
-- Its str_value, else its int_value.
RETURNS ANY AS
SELECT coalesce(str_value, int_value) FROM metadata WHERE name = $name ORDER BY id LIMIT 1;

-- The value of metadata `name` recorded for machine `machine_id`.
CREATE PERFETTO FUNCTION extract_metadata_for_machine(
  -- The machine, as in metadata.machine_id.
  machine_id LONG,
  -- The metadata name.
  name STRING)
-- Its str_value, else its int_value.
RETURNS ANY AS
SELECT coalesce(str_value, int_value) FROM metadata
WHERE name = $name AND machine_id = $machine_id ORDER BY id LIMIT 1;

-- The value of metadata `name` recorded for trace file `trace_id`.
CREATE PERFETTO FUNCTION extract_metadata_for_trace(
  -- The trace file, as in metadata.trace_id.
  trace_id LONG,
  -- The metadata name.
  name STRING)
-- Its str_value, else its int_value.
RETURNS ANY AS
SELECT coalesce(str_value, int_value) FROM metadata
WHERE name = $name AND trace_id = $trace_id ORDER BY id LIMIT 1;

-- The value of metadata `name` recorded for both a machine and a trace file.
CREATE PERFETTO FUNCTION extract_exact_metadata(
  -- The machine, as in metadata.machine_id.
  machine_id LONG,
  -- The trace file, as in metadata.trace_id.
  trace_id LONG,
  -- The metadata name.
  name STRING)
-- Its str_value, else its int_value.
RETURNS ANY AS
SELECT coalesce(str_value, int_value) FROM metadata
WHERE name = $name AND machine_id = $machine_id AND trace_id = $trace_id ORDER BY id LIMIT 1;
