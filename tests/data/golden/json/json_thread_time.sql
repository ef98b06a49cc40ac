-- trace: golden/json/json_thread_time.json
-- X events' tts and tdur become thread_ts and thread_dur.
select name, ts, dur, thread_ts, thread_dur from slice order by ts;
