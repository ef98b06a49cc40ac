-- Counters Perfetto promotes to global tracks: the InitialDisplayState packet's display_state
-- and atrace "ScreenState" counters share one "ScreenState" track (type screen_state, no
-- dimension); atrace counters named "battery_stats.<x>" (even an empty <x>) get a global
-- battery_stats track each (dimension counter_key, the whole name) without the writer's utid
-- arg; other atrace counters stay per process. The same as trace_processor_shell v58.2.
SELECT t.name, t.type, c.ts, c.value, c.arg_set_id IS NULL AS no_args FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY t.id, c.ts;
SELECT t.name, a.key, a.string_value FROM counter_track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id WHERE t.type IN ('battery_stats', 'screen_state') ORDER BY t.id, a.id;
