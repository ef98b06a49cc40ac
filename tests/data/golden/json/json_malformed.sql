-- trace: golden/json/json_malformed.json
-- A syntax error: the events before it are imported, the rest is skipped.
select name, ts, dur from slice order by ts;
select name, value from stats where value > 0 order by name;
