-- trace: systrace/cpu_frequency_limits.systrace
-- Perfetto's diff test parser/sched/tests.py:test_cpu_frequency_limits_from_systrace (query
-- cpu_frequency_limits_test.sql and expected output copied from it): min/max and
-- min_freq/max_freq forms become the Cpu N Max/Min Freq Limit counter tracks.
SELECT
    ts,
    value,
    REPLACE(name, " Freq Limit", "") AS cpu
FROM
    counter AS c
LEFT JOIN
    counter_track AS t
    ON c.track_id = t.id
WHERE
    name GLOB "* Freq Limit"
ORDER BY ts;
