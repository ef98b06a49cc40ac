-- virtio_gpu_cmd_queue / _response of the control and cursor queues (others ignored): free
-- slots on "Virtgpu <Queue> Free", each command a slice named by its type from queueing to
-- response on the lanes of "Virtgpu <Queue> Queue", and the latency of a
-- command without a fence on "Virtgpu <Queue> Latency". The same as trace_processor_shell v58.2.
SELECT t.name, t.type, c.ts, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts, t.id;
SELECT s.ts, s.dur, s.name, t.name AS track, t.type FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
