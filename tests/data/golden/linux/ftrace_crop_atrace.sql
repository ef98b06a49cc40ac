-- Expected output from Perfetto's diff test (and trace_processor_shell v58.2 on this trace).
SELECT ts, rtrim(extract_arg(raw.arg_set_id, 'buf'), char(0x0a)) AS raw_print,
  slice.dur AS slice_dur, slice.name AS slice_name
FROM raw LEFT JOIN slice USING (ts)
ORDER BY ts;
