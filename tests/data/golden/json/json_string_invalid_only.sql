-- trace: golden/json/json_string_invalid_only.json
-- A JSON trace whose every event has a bad string ts or dur is a JSON trace with no events,
-- not "not a trace" (Perfetto imports it, empty).
SELECT COUNT(*) AS slices FROM slice;
SELECT name, value > 0 AS counted FROM stats WHERE name = 'json_tokenizer_failure';
