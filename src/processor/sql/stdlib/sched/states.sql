-- sched.states: the names behind thread_state.state and sched.end_state letters.
-- sched_state_to_human_readable_string('S') is 'Sleeping'; unknown strings come back unchanged.
-- sched_state_io_to_human_readable_string adds ' (IO)' or ' (non-IO)' when io_wait is known.

-- The human-readable name of a scheduling state ('Running', a kernel letter such as 'R', 'R+',
-- 'D', or one of Windows' state names).
CREATE PERFETTO FUNCTION sched_state_to_human_readable_string(
  -- The state as thread_state.state or sched.end_state hold it.
  short_name STRING)
-- The state's name: R Runnable, R+ Runnable (Preempted), S Sleeping, D Uninterruptible Sleep,
-- T Stopped, t Traced, X Exit (Dead), Z Exit (Zombie), x Task Dead, I Idle, K Wakekill,
-- W Waking, P Parked, N No Load; anything else as given.
RETURNS STRING AS
SELECT CASE $short_name
  WHEN 'R' THEN 'Runnable'
  WHEN 'R+' THEN 'Runnable (Preempted)'
  WHEN 'S' THEN 'Sleeping'
  WHEN 'D' THEN 'Uninterruptible Sleep'
  WHEN 'T' THEN 'Stopped'
  WHEN 't' THEN 'Traced'
  WHEN 'X' THEN 'Exit (Dead)'
  WHEN 'Z' THEN 'Exit (Zombie)'
  WHEN 'x' THEN 'Task Dead'
  WHEN 'I' THEN 'Idle'
  WHEN 'K' THEN 'Wakekill'
  WHEN 'W' THEN 'Waking'
  WHEN 'P' THEN 'Parked'
  WHEN 'N' THEN 'No Load'
  ELSE $short_name
END;

-- The human-readable name of a scheduling state with its IO wait flag.
CREATE PERFETTO FUNCTION sched_state_io_to_human_readable_string(
  -- The state as thread_state.state holds it.
  sched_state STRING,
  -- thread_state.io_wait: 1 for an IO sleep, 0 for another sleep, NULL when unknown.
  io_wait BOOL)
-- The state's name followed by ' (IO)', ' (non-IO)' or nothing.
RETURNS STRING AS
SELECT sched_state_to_human_readable_string($sched_state)
  || iif($io_wait = 1, ' (IO)', iif($io_wait = 0, ' (non-IO)', ''));
