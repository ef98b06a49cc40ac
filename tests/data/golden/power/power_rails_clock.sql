-- PowerRails on a custom clock: a packet's time on clock 128 converts through the snapshot;
-- timestamp_ms is CLOCK_BOOTTIME whatever the packet's clock; a packet without a timestamp
-- gives its values the latest packet time as packet_ts. The same as trace_processor_shell v58.2.
SELECT c.ts, extract_arg(c.arg_set_id, 'packet_ts') AS packet_ts, c.value, t.name FROM counter c JOIN counter_track t ON t.id = c.track_id ORDER BY c.id;
