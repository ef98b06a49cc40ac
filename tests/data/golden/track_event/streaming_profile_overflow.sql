-- Saturating legacy timestamps shared by TrackEvent and StreamingProfilePacket (Perfetto's
-- diff test streaming_profile_timestamp_delta_overflow); checked against Perfetto's
-- trace_processor_shell.
SELECT
  (SELECT count(*) FROM slice) AS slice_count,
  (SELECT name FROM slice) AS slice_name,
  (SELECT ts FROM slice) AS slice_ts,
  (SELECT value FROM stats WHERE name = 'track_event_invalid_timestamp') AS track_errors,
  (SELECT value FROM stats WHERE name = 'streaming_profile_invalid_timestamp') AS profile_errors;
