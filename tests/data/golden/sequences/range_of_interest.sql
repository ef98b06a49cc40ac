-- TrackEventRangeOfInterest with --crop-track-events; checked against Perfetto's
-- trace_processor_shell --crop-track-events.
-- options: --crop-track-events
SELECT ts, dur, name, depth FROM slice ORDER BY ts;
SELECT name, int_value FROM metadata WHERE name = 'range_of_interest_start_us';
SELECT name, value FROM stats
WHERE name = 'track_event_dropped_packets_outside_of_range_of_interest';
