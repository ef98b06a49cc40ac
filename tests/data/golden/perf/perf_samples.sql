-- PerfSample (TracePacket 66, traced_perf): each packet sequence is a perf session; each
-- (session, CPU) gets the counter tracks its sequence's PerfSampleDefaults name (timebase first:
-- a counter's perf name with ':' and its u/k/h modifiers, a follower's own name, a tracepoint's
-- name, raw.0x<type>.0x<config>..., "cpu-clock" without defaults), all made with the CPU's first
-- packet, in time order across sequences; a sample's counts are counters at its time (extra
-- follower counts dropped), its row has its thread, CPU, cpu_mode, unwind_error and callsite
-- (NULL for an empty, unknown or unresolvable callstack, each counted); lost records, skipped
-- samples, a guardrail stop and process sharding are stats (indexed by CPU or session). The
-- same as trace_processor_shell v58.2.
select * from perf_sample order by id;
select * from perf_session;
select * from perf_counter_track order by id;
select id, ts, track_id, value from counter order by id;
select ucpu, cpu from cpu order by id;
select utid, tid, upid, name from thread order by utid;
select upid, pid from process order by upid;
select name, idx, severity, source, value from stats where value > 0 and source = 'trace' order by name;
select * from stack_profile_callsite order by id;
select id, name, mapping, rel_pc from stack_profile_frame order by id;
select * from trace_bounds;
INCLUDE PERFETTO MODULE linux.perf.counters; select sample_id, ts, t.name as counter_name, counter_value from linux_perf_sample_with_counters join track t on t.id = track_id order by sample_id, counter_name;
INCLUDE PERFETTO MODULE linux.perf.counters; select id, linux_perf_counter_for_sample(id, 'cpu-cycles:u') as c, linux_perf_counter_for_sample(id, 'nope') as d from perf_sample order by id;
