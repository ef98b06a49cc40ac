-- GPU correlation flows between track events and render stages sharing an event_id, and
-- between stages one of which waited on the other. The same as trace_processor_shell v58.2.
-- trace: graphics/gpu_flows.pb
SELECT f.id, o.name AS slice_out, i.name AS slice_in, f.trace_id FROM flow f JOIN slice o ON f.slice_out = o.id JOIN slice i ON f.slice_in = i.id ORDER BY f.id;
