-- sched.runnable: for each Running thread state, the runnable state before it on its thread.
-- sched_previous_runnable_on_thread(id, prev_runnable_id, prev_wakeup_runnable_id): among the
-- thread's finished rows whose state starts with 'R' (R, R+ and Running), in id order,
-- prev_runnable_id is the last earlier row that is not Running, prev_wakeup_runnable_id the
-- last row up to this one with a waker that did not wake it from an interrupt.

-- For each Running thread state, the thread's previous runnable states.
CREATE PERFETTO TABLE sched_previous_runnable_on_thread(
  -- The Running thread state.
  id JOINID(thread_state.id),
  -- The last runnable (R or R+) state of the thread before it.
  prev_runnable_id JOINID(thread_state.id),
  -- The last state before it with a waker thread, not woken from interrupt context.
  prev_wakeup_runnable_id JOINID(thread_state.id)
) AS
-- One pass over thread_state's columns in C (thread_state_scans.c) answers what this did, in
-- the same order (SQLite sorted the R* rows by thread for the window):
--   WITH r_states AS (SELECT id, utid, state, iif(state = 'Running', NULL, id) AS runnable_id,
--       iif(waker_utid IS NOT NULL AND irq_context IS NOT 1, id, NULL) AS woken_id
--     FROM thread_state WHERE state GLOB 'R*' AND dur != -1),
--   running AS (SELECT id, state, max(runnable_id) OVER w AS prev_runnable_id,
--       max(woken_id) OVER w AS prev_wakeup_runnable_id FROM r_states
--     WINDOW w AS (PARTITION BY utid ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))
--   SELECT id, prev_runnable_id, prev_wakeup_runnable_id FROM running WHERE state = 'Running'
SELECT id, prev_runnable_id, prev_wakeup_runnable_id
FROM __trak_previous_runnable
ORDER BY id;
