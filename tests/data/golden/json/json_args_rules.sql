-- trace: golden/json/json_args_rules.json
-- A JSON trace's args follow the one set of rules legacy_json_value follows too
-- (import/json/json_args.c): an escaped string is unescaped in full (it was cut at 4095 bytes);
-- uint64 past int64 is a real of its bits. (A key past 1024 bytes is dropped and counted in
-- arg_key_too_long: test_json_import, since such a trace exits 1.)
SELECT flat_key, key, int_value, length(string_value) AS str_len, real_value, value_type FROM args
WHERE key LIKE 'args.%' ORDER BY id;
SELECT name, value FROM stats WHERE name IN ('arg_key_too_long', 'json_invalid_utf8') ORDER BY name;
