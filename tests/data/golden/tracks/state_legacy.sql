-- State events: dropped with legacy_event fields; args; other event types on a state track.
select name, value from stats where name = 'track_event_parser_errors';
select s.ts, s.dur, s.value, a.key, a.int_value from state s left join args a using (arg_set_id);
select ts, name, track_id from slice;
