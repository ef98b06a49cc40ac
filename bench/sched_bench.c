/*
** Import benchmark of Linux scheduling data: generates a sched-heavy trace (FtraceEventBundles of
** 4 CPUs, each CPU switching among 64 threads, a sched_waking before every switch in) in the
** typed encoding or the compact_sched one, writes it to a file, imports it with the public API
** and prints the import time, events/s and peak RSS.
**
**   sched_bench [EVENTS] [compact|typed] [FILE]
**   defaults: 1000000 events (switches and wakings), typed, /tmp/trak_sched_bench.pb
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "trak/pb.h"
#include "trak/processor.h"
#include "trak/protos.h"

#define CPUS 4
#define THREADS 64
#define BUNDLE 500 /* events per bundle */

static char comms[THREADS][16];

static void flush(trak_pb_buf *b, FILE *f) {
  fwrite(b->start, 1, trak_pb_buf_len(b), f);
  b->p = b->start;
}

/* One typed bundle of `n` events of `cpu` from *ts; *cur is the CPU's running thread index. */
static void typed_bundle(trak_pb_buf *b, uint32_t cpu, int64_t *ts, int *cur, uint64_t *rng,
                         int n) {
  trak_pb_nested pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, 1 + cpu);
  trak_pb_nested bun = trak_pb_begin_nested(b, TRAK_PB_TracePacket_ftrace_events);
  trak_pb_put_varint(b, TRAK_PB_FtraceEventBundle_cpu, cpu);
  for (int i = 0; i + 1 < n; i += 2) {
    *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
    int next = (int)(*rng >> 33) % THREADS;
    int pid_cur = 1000 + (int)cpu * THREADS + *cur, pid_next = 1000 + (int)cpu * THREADS + next;
    *ts += 1000;
    trak_pb_nested ev = trak_pb_begin_nested(b, TRAK_PB_FtraceEventBundle_event);
    trak_pb_put_varint(b, TRAK_PB_FtraceEvent_timestamp, (uint64_t)*ts);
    trak_pb_put_varint(b, TRAK_PB_FtraceEvent_pid, (uint64_t)pid_cur);
    trak_pb_nested w = trak_pb_begin_nested(b, TRAK_PB_FtraceEvent_sched_waking);
    trak_pb_put_string(b, TRAK_PB_SchedWakingFtraceEvent_comm, comms[next]);
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
    trak_pb_put_string(b, TRAK_PB_SchedSwitchFtraceEvent_prev_comm, comms[*cur]);
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_prev_pid, pid_cur);
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_prev_prio, 120);
    trak_pb_put_int64(b, TRAK_PB_SchedSwitchFtraceEvent_prev_state, 1);
    trak_pb_put_string(b, TRAK_PB_SchedSwitchFtraceEvent_next_comm, comms[next]);
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
static void compact_bundle(trak_pb_buf *b, uint32_t cpu, int64_t *ts, int *cur, uint64_t *rng,
                           int n) {
  uint64_t sw_ts[BUNDLE], wk_ts[BUNDLE], state[BUNDLE], pid[BUNDLE], prio[BUNDLE], idx[BUNDLE];
  uint64_t wpid[BUNDLE], wcpu[BUNDLE], widx[BUNDLE];
  int k = 0;
  int64_t last_sw = 0, last_wk = 0;
  for (int i = 0; i + 1 < n; i += 2, k++) {
    *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
    int next = (int)(*rng >> 33) % THREADS;
    *ts += 1000;
    wk_ts[k] = (uint64_t)(*ts - last_wk), last_wk = *ts;
    wpid[k] = (uint64_t)(1000 + (int)cpu * THREADS + next), wcpu[k] = cpu, widx[k] = (uint64_t)next;
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
  for (int t = 0; t < THREADS; t++)
    trak_pb_put_string(b, TRAK_PB_FtraceEventBundle_CompactSched_intern_table, comms[t]);
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

int main(int argc, char **argv) {
  long events = argc > 1 ? atol(argv[1]) : 1000000;
  int compact = argc > 2 && !strcmp(argv[2], "compact");
  const char *path = argc > 3 ? argv[3] : "/tmp/trak_sched_bench.pb";
  for (int t = 0; t < THREADS; t++)
    snprintf(comms[t], sizeof comms[t], "worker-%d", t);
  FILE *f = fopen(path, "wb");
  if (!f) return perror(path), 1;
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  int64_t ts[CPUS] = {0};
  int cur[CPUS] = {0};
  uint64_t rng = 42;
  /* one bundle per CPU in turn, each CPU's clock a little ahead of the last: the import sorts */
  for (long done = 0; done < events;) {
    for (uint32_t c = 0; c < CPUS && done < events; c++, done += BUNDLE) {
      if (ts[c] < ts[(c + CPUS - 1) % CPUS] - 500000) ts[c] = ts[(c + CPUS - 1) % CPUS] - 500000;
      if (compact)
        compact_bundle(&b, c, &ts[c], &cur[c], &rng, BUNDLE);
      else
        typed_bundle(&b, c, &ts[c], &cur[c], &rng, BUNDLE);
      if (trak_pb_buf_len(&b) > (1u << 20)) flush(&b, f);
    }
  }
  flush(&b, f);
  long size = ftell(f);
  fclose(f);
  trak_pb_buf_free(&b);

  struct rusage r0;
  getrusage(RUSAGE_SELF, &r0);
  double t0 = bench_now_sec();
  trak_processor *p;
  trak_error err = {0};
  if (trak_processor_open_file(path, NULL, &p, &err)) return fprintf(stderr, "%s\n", err.message), 1;
  double secs = bench_now_sec() - t0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("encoding           %s\n", compact ? "compact_sched" : "typed");
  printf("events             %ld (sched_switch + sched_waking)\n", events);
  printf("trace bytes        %.1f MB\n", (double)size / 1e6);
  double cpu = (double)(ru.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
               (double)(ru.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 +
               (double)(ru.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
               (double)(ru.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
  printf("import             %.3f s wall, %.3f s CPU\n", secs, cpu);
  printf("events/s           %.2f M (of CPU time)\n", (double)events / cpu / 1e6);
  printf("peak RSS           %.1f MB (%.0f bytes/event)\n", (double)ru.ru_maxrss / 1024,
         (double)ru.ru_maxrss * 1024 / (double)events);
  trak_processor_free(p);
  if (!getenv("TRAK_BENCH_KEEP")) remove(path);
  return 0;
}
