-- f2fs_iostat / f2fs_iostat_latency: each figure on its global counter
-- "f2fs_iostat[_latency].[<major>:<minor>].<name>" (types f2fs_iostat, f2fs_iostat_latency;
-- dev 65056 is 254:32), absent figures 0, as Perfetto's iostat tracker names them. The same as
-- trace_processor_shell v58.2.
SELECT ct.name, ct.type, c.ts, c.value FROM counter c JOIN counter_track ct ON c.track_id = ct.id WHERE ct.name GLOB '*app*' OR ct.name GLOB '*read_data*' OR ct.name GLOB '*discard*' OR ct.name GLOB '*async_meta_cnt' OR ct.name GLOB '*fs_data' ORDER BY ct.name, c.ts;
SELECT count(*) FROM counter_track;
