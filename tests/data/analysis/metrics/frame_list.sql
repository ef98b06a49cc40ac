-- Test metric included by frames.sql: the frames of the trace, longer than {{min_dur}}.
PARAM min_dur DEFAULT 0;
CREATE TABLE frame_list AS
SELECT s.id, s.name, s.ts, s.dur, tt.utid FROM slice s JOIN thread_track tt ON s.track_id = tt.id
WHERE s.name GLOB 'Choreographer#doFrame*' AND s.dur > {{min_dur}};
CREATE VIEW frame_list_output AS SELECT count(*) AS frames FROM frame_list;
