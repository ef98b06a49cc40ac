SELECT name, idx, severity, source, value FROM stats WHERE name GLOB 'traced_*' AND value > 0
ORDER BY name, idx;
SELECT COUNT(*) AS zero_rows FROM stats WHERE name GLOB 'traced_buf_*' AND value = 0;
SELECT name, value FROM stats WHERE name GLOB 'traced_producers_*' ORDER BY name;
SELECT name, ts FROM slice;
SELECT name, value FROM stats WHERE value > 0 AND name NOT GLOB 'traced_*' ORDER BY name;
