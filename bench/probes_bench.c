/*
** Benchmark of `trak probes`' ftrace path (needs root and tracefs; prints why not otherwise):
** a hackbench-like load (pairs of threads passing a byte through pipes) runs on every CPU while
** a reader drains the kernel buffers every 100 ms exactly as linux.ftrace does, once with full
** events and once with compact sched. Prints the sched events recorded per second, the reader's
** CPU time per million events, bytes per event, and the kernel's lost events (overrun). The
** shared-memory copy into the daemon's session is not included (one memcpy per bundle).
**   probes_bench [SECONDS] [PAIRS]     default 3 s, 8 pairs
*/
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probes/probes.h"
#include "probes/tracefs.h"
#include "trak/protos.h"

static volatile int stop_load;

static void *pinger(void *arg) {
  int *fds = arg; /* read end, write end */
  char c = 0;
  while (!stop_load) {
    if (write(fds[1], &c, 1) != 1 || read(fds[0], &c, 1) != 1) break;
  }
  return NULL;
}

static double thread_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t sink_bytes;
static void sink(void *user, const uint8_t *data, size_t len) {
  (void)user, (void)data;
  sink_bytes += len;
}

/* The sum of field `key` of every CPU's stats. */
static uint64_t sum_stat(trak__ftrace_reader *r, const char *key) {
  uint64_t sum = 0;
  for (int c = 0; c < r->ncpus; c++) {
    char rel[64], text[2048];
    snprintf(rel, sizeof rel, "per_cpu/cpu%d/stats", c);
    if (trak__tracefs_read(r->root, rel, text, sizeof text) <= 0) continue;
    const char *p = strstr(text, key);
    if (p) sum += strtoull(p + strlen(key), NULL, 10);
  }
  return sum;
}

static int run(double seconds, int pairs, int compact) {
  char *events[] = {"sched/sched_switch", "sched/sched_waking", NULL};
  trak__ftrace_opts o = {events, 2048, compact, 0, 0};
  trak__ftrace_reader r;
  trak_error err = {0};
  if (trak__ftrace_reader_open(&r, &o, &err) || trak__ftrace_reader_start(&r, &o, &err)) {
    printf("probes_bench: skipped: %s\n", err.message);
    trak__ftrace_reader_close(&r);
    return 1;
  }
  stop_load = 0;
  pthread_t *t = malloc(sizeof *t * (size_t)pairs * 2);
  int(*fds)[4] = malloc(sizeof *fds * (size_t)pairs);
  for (int i = 0; i < pairs; i++) {
    int a[2], b[2];
    if (pipe(a) || pipe(b)) return 1;
    int *x = fds[i];
    x[0] = a[0], x[1] = b[1], x[2] = b[0], x[3] = a[1]; /* ping reads a writes b; pong reverse */
    pthread_create(&t[2 * i], NULL, pinger, x);
    pthread_create(&t[2 * i + 1], NULL, pinger, x + 2);
  }
  sink_bytes = 0;
  double cpu0 = thread_cpu_s(), t0 = now_s();
  while (now_s() - t0 < seconds) {
    trak__ftrace_reader_drain(&r, sink, NULL, 0, NULL);
    nanosleep(&(struct timespec){0, 100 * 1000000}, NULL);
  }
  stop_load = 1;
  for (int i = 0; i < pairs; i++) /* unblock the readers */
    for (int k = 0; k < 4; k++)
      close(fds[i][k]);
  for (int i = 0; i < 2 * pairs; i++)
    pthread_join(t[i], NULL);
  trak__ftrace_reader_drain(&r, sink, NULL, 0, NULL);
  double cpu = thread_cpu_s() - cpu0, wall = now_s() - t0;
  uint64_t ev = 0;
  for (int c = 0; c < r.ncpus; c++)
    ev += r.bundlers[c].events_total;
  uint64_t overrun = sum_stat(&r, "\noverrun: "), dropped = sum_stat(&r, "dropped events: ");
  printf("%-8s %9.0f events/s  %6.2f s CPU per million events (%4.1f%% of one CPU)  "
         "%5.1f bytes/event  lost %llu (overrun) + %llu (dropped) of %llu\n",
         compact ? "compact" : "full", ev / wall, ev ? cpu / (ev / 1e6) : 0, 100 * cpu / wall,
         ev ? (double)sink_bytes / ev : 0, (unsigned long long)overrun, (unsigned long long)dropped,
         (unsigned long long)(ev + overrun + dropped));
  trak__ftrace_reader_close(&r);
  free(t);
  free(fds);
  return 0;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 3;
  int pairs = argc > 2 ? atoi(argv[2]) : 8;
  if (getuid() != 0) {
    printf("probes_bench: skipped: needs root (tracefs)\n");
    return 0;
  }
  printf("probes_bench: %.0f s, %d thread pairs passing a byte, sched_switch + sched_waking, "
         "2048 KB per CPU, drained every 100 ms\n",
         seconds, pairs);
  if (run(seconds, pairs, 0)) return 0;
  run(seconds, pairs, 1);
  return 0;
}
