SELECT name, str_value, trace_id FROM metadata WHERE name = 'trace_trigger';
SELECT name, value, machine_id, trace_id FROM stats WHERE name GLOB 'traced_clone_*' ORDER BY name;
SELECT slice.ts, slice.dur, slice.name, track.name AS track, track.type,
  extract_arg(slice.arg_set_id, 'producer_name') AS producer,
  extract_arg(slice.arg_set_id, 'trusted_producer_uid') AS uid
FROM slice JOIN track ON slice.track_id = track.id
WHERE track.name = 'Trace Triggers' ORDER BY slice.ts;
