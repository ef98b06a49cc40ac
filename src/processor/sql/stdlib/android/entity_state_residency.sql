-- android.entity_state_residency: the time power entities spent in each state
-- (EntityStateResidency packets of android.power; tracks of type 'entity_state' named
-- "Entity residency: <entity> is <state>"), one row per sample.

CREATE PERFETTO TABLE android_entity_state_residency(
  -- The sample's counter row.
  id ID(counter.id),
  -- When it was sampled.
  ts TIMESTAMP,
  -- Until the state's next sample (NULL for the last).
  dur DURATION,
  -- The entity (a subsystem: "Bluetooth").
  entity_name STRING,
  -- The state ("Idle").
  state_name STRING,
  -- The track's name.
  raw_name STRING,
  -- Time in the state since boot, in ns.
  state_time_since_boot DURATION,
  -- The same at the next sample.
  state_time_since_boot_at_end DURATION,
  -- The share of the time until the next sample spent in the state (0 to 1).
  state_time_ratio DOUBLE,
  -- The entity state's track.
  track_id JOINID(track.id)
) AS
WITH states AS (
  SELECT
    id,
    name AS raw_name,
    iif(name GLOB 'Entity residency: * is *',
        substr(name, length('Entity residency: ') + 1,
               instr(name, ' is ') - length('Entity residency: ') - 1),
        NULL) AS entity_name,
    iif(name GLOB 'Entity residency: * is *', substr(name, instr(name, ' is ') + 4), NULL)
      AS state_name
  FROM counter_track
  WHERE type = 'entity_state'
),
samples AS (
  SELECT
    c.id,
    c.ts,
    lead(c.ts) OVER (PARTITION BY c.track_id ORDER BY c.ts) - c.ts AS dur,
    s.entity_name,
    s.state_name,
    s.raw_name,
    CAST(c.value * 1e6 AS INTEGER) AS state_time_since_boot,
    CAST(lead(c.value) OVER (PARTITION BY c.track_id ORDER BY c.ts) * 1e6 AS INTEGER)
      AS state_time_since_boot_at_end,
    c.track_id
  FROM counter AS c
  JOIN states AS s ON s.id = c.track_id
)
SELECT
  id,
  ts,
  dur,
  entity_name,
  state_name,
  raw_name,
  state_time_since_boot,
  state_time_since_boot_at_end,
  (state_time_since_boot_at_end - state_time_since_boot) * 1.0 / dur AS state_time_ratio,
  track_id
FROM samples;
