-- State tracks: the state table with its tracks' names and scopes, the state track views, and
-- the event on a track that is not a state track counted as a parser error.
SELECT s.id, s.ts, s.dur, s.category, s.value, t.name AS track, t.type,
  p.name AS process, th.name AS thread
FROM state s JOIN track t ON t.id = s.track_id
LEFT JOIN process_state_track pst ON pst.id = s.track_id
LEFT JOIN process p ON p.upid = pst.upid
LEFT JOIN thread_state_track tst ON tst.id = s.track_id
LEFT JOIN thread th ON th.utid = tst.utid
ORDER BY s.id;
SELECT name, type FROM state_track ORDER BY id;
SELECT count(*) FROM slice;
SELECT name, value FROM stats WHERE name = 'track_event_parser_errors';
