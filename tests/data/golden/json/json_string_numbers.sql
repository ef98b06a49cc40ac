-- trace: golden/json/json_string_numbers.json
-- String ts / dur are read with JSON's number grammar, as Perfetto reads them: an event whose
-- string is not a whole JSON number is dropped and counted (oracle-checked).
SELECT ts, dur, name FROM slice ORDER BY ts;
SELECT name, severity, value FROM stats WHERE name = 'json_tokenizer_failure';
