-- linux.devfreq: the frequencies of devfreq devices (devfreq/devfreq_frequency ftrace events,
-- 'linux_device_frequency' counter tracks) as intervals; the DSU (ARM DynamIQ Shared Unit)
-- device's in a table of its own.

INCLUDE PERFETTO MODULE counters.intervals;

-- The frequency of the devfreq devices whose name matches `device_name` (a GLOB pattern), as
-- intervals in which it holds.
CREATE PERFETTO FUNCTION _get_devfreq_counters(
  -- GLOB pattern of the device's name.
  device_name STRING
)
RETURNS TABLE(
  -- The counter row that begins the interval.
  id LONG,
  -- Start of the interval.
  ts TIMESTAMP,
  -- Its length.
  dur DURATION,
  -- The frequency (kHz).
  freq LONG
) AS
SELECT i.id, i.ts, i.dur, CAST(i.value AS INT) AS freq
FROM counter_leading_intervals!((
  SELECT c.*
  FROM counter AS c
  JOIN track AS t ON t.id = c.track_id
  WHERE t.type = 'linux_device_frequency'
    AND extract_arg(t.dimension_arg_set_id, 'linux_device') GLOB $device_name
)) AS i;

-- The DSU's frequency over time (devices named "...devfreq_dsu" or "...dsufreq").
CREATE PERFETTO TABLE linux_devfreq_dsu_counter(
  -- The counter row that begins the interval.
  id LONG,
  -- Start of the interval.
  ts TIMESTAMP,
  -- Its length.
  dur DURATION,
  -- The frequency (kHz).
  dsu_freq LONG
) AS
SELECT id, ts, dur, freq AS dsu_freq FROM _get_devfreq_counters('*devfreq_dsu')
UNION ALL
SELECT id, ts, dur, freq AS dsu_freq FROM _get_devfreq_counters('*dsufreq');
