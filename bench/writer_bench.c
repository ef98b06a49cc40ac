/*
** Throughput of the synthetic trace writer: 10 million events (BEGIN / END pairs nesting up
** to four deep over 8 thread tracks in runs of 8 events, names interned once and passed by id)
** written to a sink that only counts bytes, so the figure is the writer's own cost. Also
** measured for reference: the same with names passed as strings (hashed per event), COMPLETE
** slices and counters, and begin/end on one thread track (every event on the sequence's default
** track) or switching track at every event (the worst case for the default track).
** Prints events/s and bytes/event; asserts nothing.
**   usage: writer_bench [events [workload]]   (default 10000000 events, all six workloads;
**          workload 0-5 runs one of them once, for callgrind)
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "trak/writer.h"
#include "bench_util.h"

static int count_sink(void *user, const void *data, size_t len) {
  *(uint64_t *)user += len;
  return 0;
}

enum { N_THREADS = 8, N_NAMES = 64, DEPTH = 4 };
typedef enum {
  BEGIN_END_IDS,
  BEGIN_END_STRINGS,
  COMPLETE_IDS,
  COUNTERS,
  ONE_THREAD,
  EVERY_EVENT_SWITCHES
} workload;
enum { N_WORKLOADS = EVERY_EVENT_SWITCHES + 1 };

static const char *const WORKLOAD_NAMES[] = {
    "begin/end, interned names",       "begin/end, string names",
    "complete slices, interned names", "int counters",
    "begin/end, one thread",           "begin/end, new track each event"};

/* The thread of event i: runs of 8 events per thread, or one thread, or a new one each time. */
static unsigned thread_of(workload kind, uint64_t i) {
  if (kind == ONE_THREAD) return 0;
  if (kind == EVERY_EVENT_SWITCHES) return (unsigned)i & (N_THREADS - 1);
  return (unsigned)(i >> 3) & (N_THREADS - 1);
}

/* Writes `n` events of `kind`; returns the seconds taken and fills bytes. */
static double run(workload kind, uint64_t n, uint64_t *bytes) {
  trak_writer *w;
  *bytes = 0;
  if (trak_writer_open_callback(&w, count_sink, bytes, NULL)) exit(1);
  trak_writer_track process, threads[N_THREADS], counters[N_THREADS];
  trak_writer_add_process(w, 1, "bench", NULL, &process);
  trak_writer_track_info info = {.parent = process};
  char names[N_NAMES][32];
  trak_writer_name ids[N_NAMES];
  for (int i = 0; i < N_THREADS; i++) {
    trak_writer_add_thread(w, 1, 100 + i, "worker", &info, &threads[i]);
    info.name = "counter";
    trak_writer_add_counter_track(w, &info, TRAK_WRITER_UNIT_COUNT, NULL, &counters[i]);
    info.name = NULL;
  }
  for (int i = 0; i < N_NAMES; i++) {
    snprintf(names[i], sizeof names[i], "function_name_%d", i);
    ids[i] = trak_writer_intern_name(w, names[i]);
  }
  uint64_t ts[N_THREADS] = {0};
  int depth[N_THREADS] = {0};
  trak_writer_event ev = {0};
  double t0 = bench_now_sec();
  for (uint64_t i = 0; i < n; i++) {
    unsigned t = thread_of(kind, i);
    ts[t] += 1 + (i & 7);
    ev.ts = ts[t];
    switch (kind) {
    case BEGIN_END_IDS:
    case BEGIN_END_STRINGS:
    case ONE_THREAD:
    case EVERY_EVENT_SWITCHES: {
      /* Open up to DEPTH slices, then close them all: a sawtooth like a call stack. */
      int open = ((i >> 3) / N_THREADS) & 1 ? 0 : depth[t] < DEPTH;
      ev.track = threads[t];
      ev.type = open || !depth[t] ? TRAK_WRITER_BEGIN : TRAK_WRITER_END;
      if (ev.type == TRAK_WRITER_BEGIN)
        depth[t]++;
      else
        depth[t]--;
      ev.name_id = kind != BEGIN_END_STRINGS ? ids[i % N_NAMES] : 0;
      ev.name = kind == BEGIN_END_STRINGS ? names[i % N_NAMES] : NULL;
      break;
    }
    case COMPLETE_IDS:
      ev.track = threads[t];
      ev.type = TRAK_WRITER_COMPLETE;
      ev.dur = 1;
      ev.name_id = ids[i % N_NAMES];
      break;
    case COUNTERS:
      ev.track = counters[t];
      ev.type = TRAK_WRITER_COUNTER_INT;
      ev.int_value = (int64_t)(i * 7919 % 100000);
      break;
    }
    if (trak_writer_write(w, &ev)) {
      fprintf(stderr, "event %llu refused: %s\n", (unsigned long long)i,
              trak_writer_last_error(w)->message);
      exit(1);
    }
  }
  trak_writer_totals totals;
  trak_writer_close(w, &totals, NULL);
  return bench_now_sec() - t0;
}

int main(int argc, char **argv) {
  uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
  if (argc > 2) {
    uint64_t bytes;
    workload k = (workload)atoi(argv[2]);
    if ((unsigned)k >= N_WORKLOADS) return 2;
    double s = run(k, n, &bytes);
    printf("%s: %.1f M events/s, %.2f bytes/event\n", WORKLOAD_NAMES[k], (double)n / s / 1e6,
           (double)bytes / (double)n);
    return 0;
  }
  printf("writer_bench: %llu events per workload, one thread, counting sink\n",
         (unsigned long long)n);
  for (int k = BEGIN_END_IDS; k < N_WORKLOADS; k++) {
    uint64_t bytes;
    double best = 1e9;
    for (int rep = 0; rep < 3; rep++) {
      double s = run(k, n, &bytes);
      if (s < best) best = s;
    }
    printf("  %-32s %7.1f M events/s  %5.2f bytes/event  (%.3f s best of 3)\n", WORKLOAD_NAMES[k],
           (double)n / best / 1e6, (double)bytes / (double)n, best);
  }
  return 0;
}
