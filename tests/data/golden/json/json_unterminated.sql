-- trace: golden/json/json_unterminated.json
-- An unterminated array whose last event is cut: the complete events are kept.
select name, ts, dur from slice order by ts;
select name, value from stats where value > 0 order by name;
