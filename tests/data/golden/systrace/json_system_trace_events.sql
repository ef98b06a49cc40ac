-- trace: golden/systrace/json_system_trace_events.json
-- A JSON trace with a systemTraceEvents string (the trace of Perfetto's diff test
-- parser/trace_manifest/tests.py:_json_trace_with_systrace, whose tests expect sys_in_json from
-- 1.0 s to 1.5 s): the string's atrace markers are slices of thread 100 beside the JSON slice;
-- the threads of both exist, each in its process.
SELECT slice.ts, slice.dur, slice.name, thread.tid, process.pid
FROM slice JOIN thread_track ON slice.track_id = thread_track.id
JOIN thread USING (utid) LEFT JOIN process USING (upid)
ORDER BY slice.ts;
SELECT str_value FROM metadata WHERE name = 'trace_type';
