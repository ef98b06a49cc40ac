-- android.power_rails: the energy counters of the power rails (PowerRails packets of
-- android.power; tracks of type 'power_rails', named "power.rails.<friendly name>" or
-- "power.<rail>_uws"), as intervals with the average power between samples, and each rail's
-- names.

INCLUDE PERFETTO MODULE counters.intervals;

-- One row per rail sample, lasting until the rail's next kept sample
-- (counter_leading_intervals!).
CREATE PERFETTO TABLE android_power_rails_counters(
  -- The sample's counter row.
  id ID(counter.id),
  -- When it was measured.
  ts TIMESTAMP,
  -- Until the rail's next sample.
  dur DURATION,
  -- The rail's track name.
  power_rail_name STRING,
  -- The rail's name as the hardware gives it (the track's raw_name arg).
  raw_power_rail_name STRING,
  -- Energy since boot, in microwatt-seconds (the counter's value).
  energy_since_boot DOUBLE,
  -- Energy since boot at the next sample.
  energy_since_boot_at_end DOUBLE,
  -- Average power until the next sample, in milliwatts.
  average_power DOUBLE,
  -- Energy since the previous sample, in microwatt-seconds.
  energy_delta DOUBLE,
  -- The rail's track.
  track_id JOINID(track.id),
  -- The same as energy_since_boot (kept for older queries).
  value DOUBLE
) AS
WITH rail_samples AS (
  SELECT c.id, c.ts, c.track_id, c.value
  FROM counter AS c
  JOIN counter_track AS ct ON ct.id = c.track_id
  WHERE ct.type = 'power_rails'
)
SELECT
  i.id,
  i.ts,
  i.dur,
  ct.name AS power_rail_name,
  extract_arg(ct.source_arg_set_id, 'raw_name') AS raw_power_rail_name,
  i.value AS energy_since_boot,
  i.next_value AS energy_since_boot_at_end,
  1e6 * ((i.next_value - i.value) / i.dur) AS average_power,
  i.delta_value AS energy_delta,
  i.track_id,
  i.value
FROM counter_leading_intervals!(rail_samples) AS i
JOIN counter_track AS ct ON ct.id = i.track_id;

-- One row per rail: its names, subsystem and machine.
CREATE PERFETTO TABLE android_power_rails_metadata(
  -- The rail's track name.
  power_rail_name STRING,
  -- The rail's name as the hardware gives it.
  raw_power_rail_name STRING,
  -- The friendly name of a well-known rail ("cpu.mid"), else NULL.
  friendly_name STRING,
  -- The rail's track.
  track_id JOINID(track.id),
  -- The subsystem the rail feeds.
  subsystem_name STRING,
  -- The machine (device) of the rail.
  machine_id JOINID(machine.id)
) AS
SELECT
  ct.name AS power_rail_name,
  extract_arg(ct.source_arg_set_id, 'raw_name') AS raw_power_rail_name,
  iif(ct.name GLOB 'power.rails.*', substr(ct.name, length('power.rails.') + 1), NULL)
    AS friendly_name,
  ct.id AS track_id,
  extract_arg(ct.source_arg_set_id, 'subsystem_name') AS subsystem_name,
  ct.machine_id
FROM counter_track AS ct
WHERE ct.type = 'power_rails';
