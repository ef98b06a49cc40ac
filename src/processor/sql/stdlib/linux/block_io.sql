-- linux.block_io: how many requests a block device had in flight over time, from the
-- block_io_start / block_io_done slices on the 'block_io' tracks (one per device), and the
-- parts of a device number.

INCLUDE PERFETTO MODULE intervals.overlap;

-- The requests in a device's queue or in the device itself: a row each time the count
-- changes (a request issued or completed).
CREATE PERFETTO VIEW linux_active_block_io_operations_by_device(
  -- When the count changed.
  ts LONG,
  -- The requests in flight from then on.
  ops_in_queue_or_device LONG,
  -- The device (its dev_t, as userland sees it).
  dev LONG
) AS
WITH requests AS (
  SELECT s.ts, s.dur, extract_arg(t.dimension_arg_set_id, 'block_device') AS dev
  FROM slice AS s
  JOIN track AS t ON t.id = s.track_id AND t.type = 'block_io'
)
SELECT ts, value AS ops_in_queue_or_device, group_name AS dev
FROM intervals_overlap_count_by_group!(requests, ts, dur, dev);

-- The major number of a device (bits 8-19 of a userland dev_t).
CREATE PERFETTO FUNCTION linux_device_major_id(
  -- The device number.
  dev LONG
)
-- Its 12-bit major number.
RETURNS LONG AS
SELECT ($dev >> 8) & 4095;

-- The minor number of a device (bits 0-7 and 20 up of a userland dev_t).
CREATE PERFETTO FUNCTION linux_device_minor_id(
  -- The device number.
  dev LONG
)
-- Its 20-bit minor number.
RETURNS LONG AS
SELECT ($dev & 255) | (($dev >> 20) << 8);
