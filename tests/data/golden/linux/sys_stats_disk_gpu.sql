-- SysStats disk_stat and gpufreq_mhz: a disk's first sample is only remembered; each later one
-- gives the MB read, written and discarded since (2048 sectors a MB), their throughputs over
-- the disk's time on them (0 when none), the flushes and their time, on diskstat tracks
-- (dimensions device_name, counter_name; units MB, MB/s, count, ms); the GPU's frequency, every
-- value of a packet, on GPU 0's "gpufreq" track (type gpu_frequency, dimensions ugpu and gpu,
-- unit kHz though the values are MHz, as Perfetto has it). The same as trace_processor_shell
-- v58.2.
SELECT c.ts, t.name, t.type, t.unit, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.id;
SELECT t.name, a.key, a.value_type, a.int_value, a.string_value FROM counter_track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id WHERE t.name GLOB 'diskstat.*.read_amount' OR t.name = 'gpufreq' ORDER BY t.id, a.id;
SELECT name, value FROM stats WHERE value <> 0 AND name NOT LIKE '%duration_ns' ORDER BY name;
