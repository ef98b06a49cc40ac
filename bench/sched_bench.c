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
#include "gen_sched.h"
#include "trak/processor.h"

int main(int argc, char **argv) {
  long events = argc > 1 ? atol(argv[1]) : 1000000;
  int compact = argc > 2 && !strcmp(argv[2], "compact");
  const char *path = argc > 3 ? argv[3] : "/tmp/trak_sched_bench.pb";
  long size = gen_sched(path, events, compact);
  if (size < 0) return perror(path), 1;
  struct rusage r0;
  getrusage(RUSAGE_SELF, &r0);
  double t0 = bench_now_sec();
  trak_processor *p;
  trak_error err = {0};
  if (trak_processor_open_file(path, NULL, &p, &err))
    return fprintf(stderr, "%s\n", err.message), 1;
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
