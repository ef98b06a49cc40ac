SELECT s.name, extract_arg(s.arg_set_id, 'legacy_event.passthrough_utid') AS utid FROM slice s ORDER BY s.ts;
