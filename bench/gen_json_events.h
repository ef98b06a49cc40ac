/*
** The generated JSON trace-event trace of bench/json_bench (and of the two-thread import test,
** tests/test_mt_import_threads.c): JSON Object Format as Chrome writes it, 4 processes of 4
** threads, M names, then threads writing bursts of 64 events: nested B/E slices, X slices with
** fractional timestamps, thread instants, C counters, args on a fifth of the events.
*/
#ifndef TRAK_BENCH_GEN_JSON_EVENTS_H
#define TRAK_BENCH_GEN_JSON_EVENTS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define JGEN_PROCESSES 4
#define JGEN_THREADS_PER_PROCESS 4
#define JGEN_THREADS (JGEN_PROCESSES * JGEN_THREADS_PER_PROCESS)
#define JGEN_NAMES 200
#define JGEN_MAX_DEPTH 8

typedef struct jgen_thread {
  int pid, tid;
  int64_t ts; /* microseconds */
  int depth;
} jgen_thread;

static uint64_t jgen_rng = 0x9e3779b97f4a7c15ULL;
static uint64_t jgen_rand(void) {
  jgen_rng ^= jgen_rng << 13;
  jgen_rng ^= jgen_rng >> 7;
  jgen_rng ^= jgen_rng << 17;
  return jgen_rng;
}

/* Args on one event in five: a number, a string and a nested object. */
static void jgen_args(FILE *f, uint64_t r) {
  if (r % 5) return;
  fprintf(f, ",\"args\":{\"size\":%llu,\"url\":\"https://example.com/%llu\",\"info\":{\"ok\":%s}}",
          (unsigned long long)(r >> 8) % 100000, (unsigned long long)(r >> 20) % 1000,
          r & 0x100 ? "true" : "false");
}

/* Writes one event of thread `g` (with its timestamp advanced); returns the event count. */
static int jgen_event(FILE *f, jgen_thread *g) {
  uint64_t r = jgen_rand();
  g->ts += 1 + (int64_t)(r % 7);
  unsigned kind = (unsigned)(r >> 32) % 16;
  const char *sep = ",\n";
  if (kind < 6 && g->depth < JGEN_MAX_DEPTH) {
    fprintf(f,
            "%s{\"ph\":\"B\",\"name\":\"slice%u\",\"cat\":\"cat%u\",\"ts\":%lld,\"pid\":%d,"
            "\"tid\":%d",
            sep, (unsigned)(r >> 40) % JGEN_NAMES, (unsigned)(r >> 48) % 8, (long long)g->ts,
            g->pid, g->tid);
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
        sep, (unsigned)(r >> 40) % JGEN_NAMES, (unsigned)(r >> 48) % 8, (long long)g->ts,
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
  jgen_args(f, r);
  fputc('}', f);
  return 1;
}

/* Writes a trace of about `bytes` bytes to `path`; returns its event count (exits on an I/O
** error). */
static uint64_t gen_json_events(const char *path, uint64_t bytes) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  static char buf[1 << 20];
  setvbuf(f, buf, _IOFBF, sizeof buf);
  jgen_thread threads[JGEN_THREADS];
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
  for (int i = 0; i < JGEN_THREADS; i++) {
    threads[i] = (jgen_thread){100 + i / JGEN_THREADS_PER_PROCESS, 1000 + i, 1000000, 0};
    fprintf(f,
            "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":"
            "\"worker %d\"}},\n",
            threads[i].pid, threads[i].tid, i);
  }
  for (int p = 0; p < JGEN_PROCESSES; p++)
    fprintf(f,
            "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"proc %d\"}}%s",
            100 + p, p, p + 1 < JGEN_PROCESSES ? ",\n" : "");
  uint64_t events = 0;
  while ((uint64_t)ftell(f) < bytes) {
    /* Threads write in bursts, as tracing buffers flush: events come mostly sorted. */
    jgen_thread *g = &threads[jgen_rand() % JGEN_THREADS];
    for (int k = 0; k < 64; k++)
      events += (uint64_t)jgen_event(f, g);
  }
  fputs("\n],\"otherData\":{\"generator\":\"json_bench\"}}\n", f);
  fclose(f);
  return events;
}

#endif /* TRAK_BENCH_GEN_JSON_EVENTS_H */
