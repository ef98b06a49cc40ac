-- traced.stats: how long the tracing service took to flush each buffer of a
-- cloned session, from the stats its service events leave
-- (traced_clone_started_timestamp_ns, traced_clone_trigger_timestamp_ns and
-- the per-buffer traced_buf_clone_done_timestamp_ns).

-- Per buffer: the time from the start of the clone to the end of the
-- buffer's flush (buffers of a trace whose clone never started: no rows).
CREATE PERFETTO TABLE traced_clone_flush_latency(
  buffer_id LONG,
  duration_ns LONG,
  machine_id JOINID(machine.id),
  trace_id LONG
) AS
SELECT done.idx AS buffer_id,
  done.value - began.value AS duration_ns,
  done.machine_id,
  done.trace_id
FROM stats AS done
JOIN stats AS began
  ON began.name = 'traced_clone_started_timestamp_ns'
  AND began.machine_id IS done.machine_id
  AND began.trace_id IS done.trace_id
WHERE done.name = 'traced_buf_clone_done_timestamp_ns' AND began.value <> 0
ORDER BY done.machine_id, done.trace_id, done.idx;

-- Per buffer: the time from the trigger that asked for the clone to the end
-- of the buffer's flush.
CREATE PERFETTO TABLE traced_trigger_clone_flush_latency(
  buffer_id LONG,
  duration_ns LONG,
  machine_id JOINID(machine.id),
  trace_id LONG
) AS
SELECT done.idx AS buffer_id,
  done.value - fired.value AS duration_ns,
  done.machine_id,
  done.trace_id
FROM stats AS done
JOIN stats AS fired
  ON fired.name = 'traced_clone_trigger_timestamp_ns'
  AND fired.machine_id IS done.machine_id
  AND fired.trace_id IS done.trace_id
WHERE done.name = 'traced_buf_clone_done_timestamp_ns' AND fired.value <> 0
ORDER BY done.machine_id, done.trace_id, done.idx;
