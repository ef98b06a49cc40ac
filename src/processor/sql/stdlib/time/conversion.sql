-- time.conversion: durations between nanoseconds (trak's and Perfetto's unit) and other
-- units. time_from_<unit>(n) scales up to nanoseconds; time_to_<unit>(ns) divides with SQLite's
-- integer division, so partial units are dropped (time_to_ms(1999999) = 1).

-- A count of nanoseconds as a duration in nanoseconds.
CREATE PERFETTO FUNCTION time_from_ns(
  -- The number of nanoseconds.
  nanos LONG)
-- Time duration in nanoseconds.
RETURNS TIMESTAMP AS SELECT $nanos;
-- A count of microseconds as a duration in nanoseconds.
CREATE PERFETTO FUNCTION time_from_us(
  -- The number of microseconds.
  micros LONG)
-- The same span in nanoseconds.
RETURNS TIMESTAMP AS SELECT $micros * 1000;
-- A count of milliseconds as a duration in nanoseconds.
CREATE PERFETTO FUNCTION time_from_ms(
  -- The number of milliseconds.
  millis LONG)
-- The same span in nanoseconds.
RETURNS TIMESTAMP AS SELECT $millis * 1000000;
-- A count of seconds as a duration in nanoseconds.
CREATE PERFETTO FUNCTION time_from_s(
  -- The number of seconds.
  seconds LONG)
-- The same span in nanoseconds.
RETURNS TIMESTAMP AS SELECT $seconds * 1000000000;
-- A count of minutes as a duration in nanoseconds.
CREATE PERFETTO FUNCTION time_from_min(
  -- The number of minutes.
  minutes LONG)
-- The same span in nanoseconds.
RETURNS TIMESTAMP AS SELECT $minutes * 60000000000;
-- A count of hours as a duration in nanoseconds.
CREATE PERFETTO FUNCTION time_from_hours(
  -- The number of hours.
  hours LONG)
-- The same span in nanoseconds.
RETURNS TIMESTAMP AS SELECT $hours * 3600000000000;
-- A count of days as a duration in nanoseconds.
CREATE PERFETTO FUNCTION time_from_days(
  -- The number of days.
  days LONG)
-- The same span in nanoseconds.
RETURNS TIMESTAMP AS SELECT $days * 86400000000000;

-- A duration in nanoseconds as whole nanoseconds, the remainder dropped.
CREATE PERFETTO FUNCTION time_to_ns(
  -- The duration in nanoseconds.
  nanos TIMESTAMP)
-- The number of whole nanoseconds.
RETURNS LONG AS SELECT $nanos;
-- A duration in nanoseconds as whole microseconds, the remainder dropped.
CREATE PERFETTO FUNCTION time_to_us(
  -- The duration in nanoseconds.
  nanos TIMESTAMP)
-- The number of whole microseconds.
RETURNS LONG AS SELECT $nanos / 1000;
-- A duration in nanoseconds as whole milliseconds, the remainder dropped.
CREATE PERFETTO FUNCTION time_to_ms(
  -- The duration in nanoseconds.
  nanos TIMESTAMP)
-- The number of whole milliseconds.
RETURNS LONG AS SELECT $nanos / 1000000;
-- A duration in nanoseconds as whole seconds, the remainder dropped.
CREATE PERFETTO FUNCTION time_to_s(
  -- The duration in nanoseconds.
  nanos TIMESTAMP)
-- The number of whole seconds.
RETURNS LONG AS SELECT $nanos / 1000000000;
-- A duration in nanoseconds as whole minutes, the remainder dropped.
CREATE PERFETTO FUNCTION time_to_min(
  -- The duration in nanoseconds.
  nanos TIMESTAMP)
-- The number of whole minutes.
RETURNS LONG AS SELECT $nanos / 60000000000;
-- A duration in nanoseconds as whole hours, the remainder dropped.
CREATE PERFETTO FUNCTION time_to_hours(
  -- The duration in nanoseconds.
  nanos TIMESTAMP)
-- The number of whole hours.
RETURNS LONG AS SELECT $nanos / 3600000000000;
-- A duration in nanoseconds as whole days, the remainder dropped.
CREATE PERFETTO FUNCTION time_to_days(
  -- The duration in nanoseconds.
  nanos TIMESTAMP)
-- The number of whole days.
RETURNS LONG AS SELECT $nanos / 86400000000000;
