-- traced.stats: how long the tracing service took to flush each buffer of a
-- cloned session, from the stats its service events leave
-- (traced_clone_started_timestamp_ns, traced_clone_trigger_timestamp_ns and
-- the per-buffer traced_buf_clone_done_timestamp_ns).

-- Per buffer, machine and trace: the time from the moment the stat `since`
-- holds (none while it is 0) to the end of the buffer's cloning.
CREATE PERFETTO MACRO _traced_clone_done_since(since Expr)
RETURNS TableOrSubquery AS (
  SELECT done.idx AS buffer_id,
    done.value - began.value AS duration_ns,
    done.machine_id,
    done.trace_id
  FROM stats AS done
  JOIN stats AS began
    ON began.name = $since
    AND began.machine_id IS done.machine_id
    AND began.trace_id IS done.trace_id
  WHERE done.name = 'traced_buf_clone_done_timestamp_ns' AND began.value <> 0
  ORDER BY done.machine_id, done.trace_id, done.idx
);

-- Per buffer: the time from the start of the clone to the end of the
-- buffer's flush (buffers of a trace whose clone never started: no rows).
CREATE PERFETTO TABLE traced_clone_flush_latency(
  buffer_id LONG,
  duration_ns LONG,
  machine_id JOINID(machine.id),
  trace_id LONG
) AS
SELECT * FROM _traced_clone_done_since!('traced_clone_started_timestamp_ns');

-- Per buffer: the time from the trigger that asked for the clone to the end
-- of the buffer's flush.
CREATE PERFETTO TABLE traced_trigger_clone_flush_latency(
  buffer_id LONG,
  duration_ns LONG,
  machine_id JOINID(machine.id),
  trace_id LONG
) AS
SELECT * FROM _traced_clone_done_since!('traced_clone_trigger_timestamp_ns');
