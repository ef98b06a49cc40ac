SELECT f.id, f.name, f.deobfuscated_name, m.name AS mapping FROM stack_profile_frame f
JOIN stack_profile_mapping m ON f.mapping = m.id ORDER BY f.id;
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
