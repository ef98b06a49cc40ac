-- trace: golden/json/json_timestamps.json
-- Microseconds to nanoseconds from the decimal text: no float drift on huge values.
select name, ts, dur from slice order by name;
select name, value from stats where value > 0 order by name;
