/*
** SDK microbenchmarks: the scenarios of the Perfetto SDK's table plus an instant, a counter and
** two threads at once; the *_compat ones run the same loops through <trak/perfetto.h>. Each line reads `SCENARIO: N ns`, the median cost of one occurrence (a
** slice counts its begin and end together) over many batches; then bytes per event. Run:
**   build/sdk_bench            (figures vary with machine load; see docs/performance.md)
** With an argument, runs only the scenario of that name (for callgrind).
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trak/protos.h"
#include "trak/trak.h"
#include "bench_util.h"

TRAK_CATEGORY_DEFINE(cat_on, "bench", "recorded");
TRAK_CATEGORY_DEFINE(cat_off, "bench.off", "never recorded");

enum { BATCH = 2000, BATCHES = 301 };

static void extra(trak_event_ctx *ctx, void *user) {
  trak_pb_put_varint(trak_event_buf(ctx), 1001, 42);
}

/* A custom writer's packet: an instant track event built by hand. */
static void raw_packet(trak_pb_buf *packet, void *user) {
  trak_pb_nested te = trak_pb_begin_nested_short(packet, TRAK_PB_TracePacket_track_event);
  trak_pb_put_varint(packet, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_INSTANT);
  trak_pb_put_string(packet, TRAK_PB_TrackEvent_name, "raw");
  trak_pb_end_nested_short(packet, te);
}

static void run_disabled(void) {
  for (int i = 0; i < BATCH; i++) {
    TRAK_EVENT(cat_off, "disabled");
    __asm__ volatile("" ::: "memory");
  }
}
static void run_slice(void) {
  for (int i = 0; i < BATCH; i++) {
    TRAK_EVENT(cat_on, "slice");
    __asm__ volatile("" ::: "memory");
  }
}
static void run_callback(void) {
  for (int i = 0; i < BATCH; i++) {
    TRAK_EVENT(cat_on, "slice_cb", TRAK_CALLBACK(extra, NULL));
    __asm__ volatile("" ::: "memory");
  }
}
static void run_arg(void) {
  for (int i = 0; i < BATCH; i++) {
    TRAK_EVENT(cat_on, "slice_arg", TRAK_ARG("value", i));
    __asm__ volatile("" ::: "memory");
  }
}
static void run_raw(void) {
  for (int i = 0; i < BATCH; i++)
    trak_packet_write(cat_on, raw_packet, NULL);
}
static void run_instant(void) {
  for (int i = 0; i < BATCH; i++)
    TRAK_EVENT_INSTANT(cat_on, "instant");
}
static trak_track counter_track;
static void run_counter(void) {
  for (int i = 0; i < BATCH; i++)
    TRAK_COUNTER(cat_on, counter_track, i);
}

/* The same loops through <trak/perfetto.h>'s macros (sdk_bench_compat.cc). */
void run_slice_compat(void);
void run_arg_compat(void);
void run_counter_compat(void);

static volatile uint64_t sink;
static void run_clock_boottime(void) {
  for (int i = 0; i < BATCH; i++)
    sink = trak_clock_now();
}
static void run_rdtsc(void) {
#if defined(__x86_64__)
  for (int i = 0; i < BATCH; i++)
    sink = __builtin_ia32_rdtsc();
#endif
}

/* Median ns per occurrence of fn's loop body. */
static double measure(void (*fn)(void)) {
  static double per[BATCHES];
  fn(); /* warm up: interning, first chunk */
  for (int b = 0; b < BATCHES; b++) {
    uint64_t t0 = bench_now_ns();
    fn();
    per[b] = (double)(bench_now_ns() - t0) / BATCH;
  }
  qsort(per, BATCHES, sizeof per[0], bench_cmp_double);
  return per[BATCHES / 2];
}

/* Each thread reports the CPU time it spent, so a busy shared machine shows through. */
static void *thread_slices(void *arg) {
  struct timespec c0, c1;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
  for (int b = 0; b < 200; b++)
    run_slice();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
  *(double *)arg = (double)(c1.tv_sec - c0.tv_sec) * 1e9 + (double)(c1.tv_nsec - c0.tv_nsec);
  return NULL;
}

/* `n` threads each write 200 batches of slices. Returns events per second of wall time and
** sets *cpu_ns_per_slice to the mean thread CPU time per slice. */
static double throughput(int n, double *cpu_ns_per_slice) {
  pthread_t th[2];
  double cpu[2] = {0, 0};
  uint64_t t0 = bench_now_ns();
  for (int i = 0; i < n; i++)
    pthread_create(&th[i], NULL, thread_slices, &cpu[i]);
  for (int i = 0; i < n; i++)
    pthread_join(th[i], NULL);
  double secs = (double)(bench_now_ns() - t0) / 1e9;
  *cpu_ns_per_slice = (cpu[0] + cpu[1]) / n / (200.0 * BATCH);
  return (double)n * 200 * BATCH * 2 / secs;
}

typedef struct scenario {
  const char *name;
  void (*fn)(void);
} scenario;

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  static const char *const off[] = {"bench.off", NULL};
  trak_session_config cfg = {0};
  cfg.buffer_size_kb = 64 * 1024;
  cfg.categories.disabled_categories = off;
  trak_session *s;
  trak_error err;
  if (trak_session_new(&cfg, &s, &err) || trak_session_start(s, &err)) {
    fprintf(stderr, "sdk_bench: %s\n", err.message);
    return 1;
  }
  counter_track = trak_track_counter("bench counter", TRAK_UNIT_COUNT, 0);
  static const scenario scenarios[] = {
      {"disabled", run_disabled},
      {"slice", run_slice},
      {"slice_compat", run_slice_compat},
      {"slice_callback", run_callback},
      {"slice_debug_arg", run_arg},
      {"slice_debug_arg_compat", run_arg_compat},
      {"raw_packet", run_raw},
      {"instant", run_instant},
      {"counter", run_counter},
      {"counter_compat", run_counter_compat},
      {"clock_boottime", run_clock_boottime},
      {"rdtsc", run_rdtsc},
  };
  for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
    if (only && strcmp(scenarios[i].name, only) != 0) continue;
    printf("%s: %.1f ns\n", scenarios[i].name, measure(scenarios[i].fn));
  }
  if (!only || strcmp("2threads", only) == 0) {
    double cpu1, cpu2;
    double one = throughput(1, &cpu1), two = throughput(2, &cpu2);
    printf("2threads: %.1f ns\n", cpu2); /* thread CPU time per slice, both running */
    printf("2threads_scaling: %.2fx events/s of one thread by wall time (%.1f M/s vs %.1f M/s); "
           "by CPU time per slice %.2fx (%.1f ns vs %.1f ns)\n",
           two / one, two / 1e6, one / 1e6, 2 * cpu1 / cpu2, cpu2, cpu1);
  }
  trak_session_stop(s, NULL);
  trak_session_free(s);

  /* Bytes per event: a fresh session, one repeated slice with an interned name; then the same
  ** with the trace compressed (compressed_packets). Not with a scenario named: callgrind's
  ** count of run_slice calls would then include these. */
  for (int compress = 0; compress <= 1 && (!only || !strcmp(only, "bytes_per_event")); compress++) {
    cfg.buffer_size_kb = 16 * 1024;
    cfg.compress = compress;
    trak_session_new(&cfg, &s, NULL);
    trak_session_start(s, NULL);
    for (int b = 0; b < 100; b++)
      run_slice();
    trak_session_stop(s, NULL);
    uint8_t *data;
    size_t len;
    trak_session_stats st;
    trak_session_read(s, &data, &len, NULL);
    trak_session_get_stats(s, &st);
    double events = 100.0 * BATCH * 2;
    if (!compress)
      printf("bytes_per_event: %.2f in the buffer, %.2f in the trace file (%zu bytes, %.0f "
             "events, %llu lost)\n",
             (double)st.bytes_written / events, (double)len / events, len, events,
             (unsigned long long)st.packets_lost);
    else
      printf("bytes_per_event_compressed: %.2f in the trace file (%zu bytes)\n",
             (double)len / events, len);
    free(data);
    trak_session_free(s);
  }
  return 0;
}
