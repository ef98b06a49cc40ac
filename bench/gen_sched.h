/*
** The generated Linux scheduling trace of bench/sched_bench (and of the two-thread import test,
** tests/test_mt_import_threads.c): FtraceEventBundles of 4 CPUs, each CPU switching among 64
** threads, a sched_waking before every switch in, bundles of 500 events interleaved across CPUs
** with each CPU's clock a little ahead of the last (the import must sort), in the typed encoding
** or the compact_sched one.
*/
#ifndef TRAK_BENCH_GEN_SCHED_H
#define TRAK_BENCH_GEN_SCHED_H

#include <stdint.h>
#include <stdio.h>

#include "trak/pb.h"
#include "trak/protos.h"

#define SCHED_CPUS 4
#define SCHED_THREADS 64
#define SCHED_BUNDLE 500 /* events per bundle */

static char sched_comms[SCHED_THREADS][16];

static void sched_flush(trak_pb_buf *b, FILE *f) {
  fwrite(b->start, 1, trak_pb_buf_len(b), f);
  b->p = b->start;
}

/* One typed bundle of `n` events of `cpu` from *ts; *cur is the CPU's running thread index. */
static void sched_typed_bundle(trak_pb_buf *b, uint32_t cpu, int64_t *ts, int *cur, uint64_t *rng,
                               int n) {
  trak_pb_nested pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, 1 + cpu);
  trak_pb_nested bun = trak_pb_begin_nested(b, TRAK_PB_TracePacket_ftrace_events);
  trak_pb_put_varint(b, TRAK_PB_FtraceEventBundle_cpu, cpu);
  for (int i = 0; i + 1 < n; i += 2) {
    *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
    int next = (int)(*rng >> 33) % SCHED_THREADS;
    int pid_cur = 1000 + (int)cpu * SCHED_THREADS + *cur,
        pid_next = 1000 + (int)cpu * SCHED_THREADS + next;
    *ts += 1000;
    trak_pb_nested ev = trak_pb_begin_nested(b, TRAK_PB_FtraceEventBundle_event);
    trak_pb_put_varint(b, TRAK_PB_FtraceEvent_timestamp, (uint64_t)*ts);
    trak_pb_put_varint(b, TRAK_PB_FtraceEvent_pid, (uint64_t)pid_cur);
    trak_pb_nested w = trak_pb_begin_nested(b, TRAK_PB_FtraceEvent_sched_waking);
    trak_pb_put_string(b, TRAK_PB_SchedWakingFtraceEvent_comm, sched_comms[next]);
    trak_pb_put_int32(b, TRAK_PB_SchedWakingFtraceEvent_pid, pid_next);
    trak_pb_put_int32(b, TRAK_PB_SchedWakingFtraceEvent_prio, 120);
    trak_pb_put_int32(b, TRAK_PB_SchedWakingFtraceEvent_target_cpu, (int32_t)cpu);
    trak_pb_end_nested(b, w);
    trak_pb_end_nested(b, ev);
    *ts += 1000;
    ev = trak_pb_begin_nested(b, TRAK_PB_FtraceEventBundle_event);
    trak_pb_put_varint(b, TRAK_PB_FtraceEvent_timestamp, (uint64_t)*ts);
    trak_pb_put_varint(b, TRAK_PB_FtraceEvent_pid, (uint64_t)pid_cur);
    trak_pb_nested s = trak_pb_begin_nested(b, TRAK_PB_FtraceEvent_sched_switch);
    trak_pb_put_string(b, TRAK_PB_SchedSwitchFtraceEvent_prev_comm, sched_comms[*cur]);
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_prev_pid, pid_cur);
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_prev_prio, 120);
    trak_pb_put_int64(b, TRAK_PB_SchedSwitchFtraceEvent_prev_state, 1);
    trak_pb_put_string(b, TRAK_PB_SchedSwitchFtraceEvent_next_comm, sched_comms[next]);
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_next_pid, pid_next);
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_next_prio, 120);
    trak_pb_end_nested(b, s);
    trak_pb_end_nested(b, ev);
    *cur = next;
  }
  trak_pb_end_nested(b, bun);
  trak_pb_end_nested(b, pkt);
}

/* The same events in the compact encoding (timestamps as deltas, comms interned). */
static void sched_compact_bundle(trak_pb_buf *b, uint32_t cpu, int64_t *ts, int *cur, uint64_t *rng,
                                 int n) {
  uint64_t sw_ts[SCHED_BUNDLE], wk_ts[SCHED_BUNDLE], state[SCHED_BUNDLE], pid[SCHED_BUNDLE],
      prio[SCHED_BUNDLE], idx[SCHED_BUNDLE];
  uint64_t wpid[SCHED_BUNDLE], wcpu[SCHED_BUNDLE], widx[SCHED_BUNDLE];
  int k = 0;
  int64_t last_sw = 0, last_wk = 0;
  for (int i = 0; i + 1 < n; i += 2, k++) {
    *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
    int next = (int)(*rng >> 33) % SCHED_THREADS;
    *ts += 1000;
    wk_ts[k] = (uint64_t)(*ts - last_wk), last_wk = *ts;
    wpid[k] = (uint64_t)(1000 + (int)cpu * SCHED_THREADS + next), wcpu[k] = cpu,
    widx[k] = (uint64_t)next;
    *ts += 1000;
    sw_ts[k] = (uint64_t)(*ts - last_sw), last_sw = *ts;
    state[k] = 1, pid[k] = wpid[k], prio[k] = 120, idx[k] = (uint64_t)next;
    *cur = next;
  }
  trak_pb_nested pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, 1 + cpu);
  trak_pb_nested bun = trak_pb_begin_nested(b, TRAK_PB_TracePacket_ftrace_events);
  trak_pb_put_varint(b, TRAK_PB_FtraceEventBundle_cpu, cpu);
  trak_pb_nested cs = trak_pb_begin_nested(b, TRAK_PB_FtraceEventBundle_compact_sched);
  for (int t = 0; t < SCHED_THREADS; t++)
    trak_pb_put_string(b, TRAK_PB_FtraceEventBundle_CompactSched_intern_table, sched_comms[t]);
  trak_pb_put_packed_varint(b, TRAK_PB_FtraceEventBundle_CompactSched_switch_timestamp, sw_ts, k);
  trak_pb_put_packed_varint(b, TRAK_PB_FtraceEventBundle_CompactSched_switch_prev_state, state, k);
  trak_pb_put_packed_varint(b, TRAK_PB_FtraceEventBundle_CompactSched_switch_next_pid, pid, k);
  trak_pb_put_packed_varint(b, TRAK_PB_FtraceEventBundle_CompactSched_switch_next_prio, prio, k);
  trak_pb_put_packed_varint(b, TRAK_PB_FtraceEventBundle_CompactSched_switch_next_comm_index, idx,
                            k);
  trak_pb_put_packed_varint(b, TRAK_PB_FtraceEventBundle_CompactSched_waking_timestamp, wk_ts, k);
  trak_pb_put_packed_varint(b, TRAK_PB_FtraceEventBundle_CompactSched_waking_pid, wpid, k);
  trak_pb_put_packed_varint(b, TRAK_PB_FtraceEventBundle_CompactSched_waking_target_cpu, wcpu, k);
  trak_pb_put_packed_varint(b, TRAK_PB_FtraceEventBundle_CompactSched_waking_prio, prio, k);
  trak_pb_put_packed_varint(b, TRAK_PB_FtraceEventBundle_CompactSched_waking_comm_index, widx, k);
  trak_pb_end_nested(b, cs);
  trak_pb_end_nested(b, bun);
  trak_pb_end_nested(b, pkt);
}

/* Writes a trace of `events` events (switches and wakings), compact_sched when `compact`, to
** `path`. Returns its size in bytes, or -1 when the file cannot be written. */
static long gen_sched(const char *path, long events, int compact) {
  for (int t = 0; t < SCHED_THREADS; t++)
    snprintf(sched_comms[t], sizeof sched_comms[t], "worker-%d", t);
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  int64_t ts[SCHED_CPUS] = {0};
  int cur[SCHED_CPUS] = {0};
  uint64_t rng = 42;
  /* one bundle per CPU in turn, each CPU's clock a little ahead of the last: the import sorts */
  for (long done = 0; done < events;) {
    for (uint32_t c = 0; c < SCHED_CPUS && done < events; c++, done += SCHED_BUNDLE) {
      if (ts[c] < ts[(c + SCHED_CPUS - 1) % SCHED_CPUS] - 500000)
        ts[c] = ts[(c + SCHED_CPUS - 1) % SCHED_CPUS] - 500000;
      if (compact)
        sched_compact_bundle(&b, c, &ts[c], &cur[c], &rng, SCHED_BUNDLE);
      else
        sched_typed_bundle(&b, c, &ts[c], &cur[c], &rng, SCHED_BUNDLE);
      if (trak_pb_buf_len(&b) > (1u << 20)) sched_flush(&b, f);
    }
  }
  sched_flush(&b, f);
  long size = ftell(f);
  fclose(f);
  trak_pb_buf_free(&b);
  return size;
}

#endif /* TRAK_BENCH_GEN_SCHED_H */
