-- trace: golden/json/json_thread_time_be.json
-- tts / tdur on B, E, thread instants and async begins, as Perfetto reads them: B (and b) give
-- thread_ts (and thread_dur from tdur), E gives thread_dur = tts - thread_ts, a thread instant
-- with tts has thread_dur 0; process instants and async ends ignore them. Flows of a B with
-- tts stay.
select s.name, s.ts, s.dur, s.thread_ts, s.thread_dur,
  (select count(*) from flow f where f.slice_out = s.id) as flows_out
from slice s order by s.ts;
