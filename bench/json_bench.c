/*
** Import benchmark of JSON trace-event traces. Generates a JSON Object Format trace (several
** processes and threads, nested B/E slices, X slices, instants, counters, args on a fifth of
** the events, M names) straight to a file in /tmp, imports it with the public API (the whole
** file fed in 1 MiB chunks, as `trak query` does), prints MB/s, events/s and peak RSS per
** event, and deletes the file.
**
**   json_bench [MEGABYTES] [FILE] [keep]
**   defaults: 500 MB, /tmp/trak_json_bench.json; "keep" leaves the file in place.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_import.h"
#include "trak/processor.h"

#define PROCESSES 4
#define THREADS_PER_PROCESS 4
#define THREADS (PROCESSES * THREADS_PER_PROCESS)
#define NAMES 200
#define MAX_DEPTH 8

typedef struct thread_gen {
  int pid, tid;
  int64_t ts; /* microseconds */
  int depth;
} thread_gen;

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* Args on one event in five: a number, a string and a nested object. */
static void put_args(FILE *f, uint64_t r) {
  if (r % 5) return;
  fprintf(f, ",\"args\":{\"size\":%llu,\"url\":\"https://example.com/%llu\",\"info\":{\"ok\":%s}}",
          (unsigned long long)(r >> 8) % 100000, (unsigned long long)(r >> 20) % 1000,
          r & 0x100 ? "true" : "false");
}

/* Writes one event of thread `g` (with its timestamp advanced); returns the event count. */
static int put_event(FILE *f, thread_gen *g) {
  uint64_t r = next_rand();
  g->ts += 1 + (int64_t)(r % 7);
  unsigned kind = (unsigned)(r >> 32) % 16;
  const char *sep = ",\n";
  if (kind < 6 && g->depth < MAX_DEPTH) {
    fprintf(f,
            "%s{\"ph\":\"B\",\"name\":\"slice%u\",\"cat\":\"cat%u\",\"ts\":%lld,\"pid\":%d,"
            "\"tid\":%d",
            sep, (unsigned)(r >> 40) % NAMES, (unsigned)(r >> 48) % 8, (long long)g->ts, g->pid,
            g->tid);
    g->depth++;
  } else if (kind < 12 && g->depth > 0) {
    fprintf(f, "%s{\"ph\":\"E\",\"ts\":%lld,\"pid\":%d,\"tid\":%d", sep, (long long)g->ts, g->pid,
            g->tid);
    g->depth--;
  } else if (kind < 14) {
    fprintf(
        f,
        "%s{\"ph\":\"X\",\"name\":\"work%u\",\"cat\":\"cat%u\",\"ts\":%lld.%03u,\"dur\":%u.%03u,"
        "\"pid\":%d,\"tid\":%d",
        sep, (unsigned)(r >> 40) % NAMES, (unsigned)(r >> 48) % 8, (long long)g->ts,
        (unsigned)(r % 1000), 0u, (unsigned)(r >> 12) % 1000, g->pid, g->tid);
  } else if (kind < 15) {
    fprintf(f, "%s{\"ph\":\"i\",\"name\":\"mark%u\",\"ts\":%lld,\"pid\":%d,\"tid\":%d,\"s\":\"t\"",
            sep, (unsigned)(r >> 40) % 20, (long long)g->ts, g->pid, g->tid);
  } else {
    fprintf(f,
            "%s{\"ph\":\"C\",\"name\":\"memory\",\"ts\":%lld,\"pid\":%d,\"args\":{\"rss\":%llu}}",
            sep, (long long)g->ts, g->pid, (unsigned long long)(r >> 16) % 1000000);
    return 1;
  }
  put_args(f, r);
  fputc('}', f);
  return 1;
}

static uint64_t generate(const char *path, uint64_t bytes) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  static char buf[1 << 20];
  setvbuf(f, buf, _IOFBF, sizeof buf);
  thread_gen threads[THREADS];
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
  for (int i = 0; i < THREADS; i++) {
    threads[i] = (thread_gen){100 + i / THREADS_PER_PROCESS, 1000 + i, 1000000, 0};
    fprintf(f,
            "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":"
            "\"worker %d\"}},\n",
            threads[i].pid, threads[i].tid, i);
  }
  for (int p = 0; p < PROCESSES; p++)
    fprintf(f,
            "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"proc %d\"}}%s",
            100 + p, p, p + 1 < PROCESSES ? ",\n" : "");
  uint64_t events = 0;
  while ((uint64_t)ftell(f) < bytes) {
    /* Threads write in bursts, as tracing buffers flush: events come mostly sorted. */
    thread_gen *g = &threads[next_rand() % THREADS];
    for (int k = 0; k < 64; k++)
      events += (uint64_t)put_event(f, g);
  }
  fputs("\n],\"otherData\":{\"generator\":\"json_bench\"}}\n", f);
  fclose(f);
  return events;
}

int main(int argc, char **argv) {
  uint64_t mb = argc > 1 ? strtoull(argv[1], NULL, 10) : 500;
  const char *path = argc > 2 ? argv[2] : "/tmp/trak_json_bench.json";
  int keep = argc > 3 && !strcmp(argv[3], "keep");
  double t0 = bench_now_sec();
  uint64_t events = generate(path, mb * 1000000);
  printf("generated %s: %llu events in %.1f s\n", path, (unsigned long long)events,
         bench_now_sec() - t0);

  trak_processor *p = bench_import_file(path, events, "events");
  static const char *const labels[] = {"slices", "counter values", "args", NULL};
  bench_import_finish(p,
                      "select (select count(*) from slice), (select count(*) from counter), "
                      "(select count(*) from args)",
                      labels, path, keep);
  return 0;
}
