-- GpuInfo and GenericGpuFrequencyEvent: the gpu table and its args, the gpu_frequency tracks.
-- The same as trace_processor_shell v58.2.
SELECT id, ugpu, gpu, name, vendor, model, architecture, uuid, pci_bdf, machine_id FROM gpu ORDER BY id;
SELECT g.gpu, a.key, a.value_type, a.string_value FROM gpu g JOIN args a USING (arg_set_id) ORDER BY g.gpu, a.id;
SELECT c.ts, c.value, t.name, t.type, t.unit, t.gpu_id, t.ugpu FROM counter c JOIN gpu_counter_track t ON c.track_id = t.id ORDER BY c.ts;
