/*
** The import measurement shared by the file-import benchmarks (json_bench, systrace_bench): a
** trace file opened with the public API, as `trak query` opens it, timed, with its throughput,
** CPU time and peak RSS per event printed.
*/
#ifndef TRAK_BENCH_IMPORT_H
#define TRAK_BENCH_IMPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "trak/processor.h"

static inline double bench_cpu_sec(const struct rusage *before, const struct rusage *after) {
  return (double)(after->ru_utime.tv_sec - before->ru_utime.tv_sec) +
         (double)(after->ru_utime.tv_usec - before->ru_utime.tv_usec) / 1e6 +
         (double)(after->ru_stime.tv_sec - before->ru_stime.tv_sec) +
         (double)(after->ru_stime.tv_usec - before->ru_stime.tv_usec) / 1e6;
}

/* Imports `path` (holding `events` events, called `unit` in the figures: "events", "lines"),
** prints MB/s, M events/s, CPU time and peak RSS per event, and returns the processor (the
** caller frees it). On an import error, prints it and exits 1. */
static inline trak_processor *bench_import_file(const char *path, uint64_t events,
                                                const char *unit) {
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  trak_processor *p;
  trak_error err = {0};
  double t0 = bench_now_sec();
  int rc = trak_processor_open_file(path, NULL, &p, &err);
  double secs = bench_now_sec() - t0;
  getrusage(RUSAGE_SELF, &after);
  if (rc) {
    fprintf(stderr, "import failed: %s\n", err.message);
    exit(1);
  }
  double bytes = (double)trak_processor_byte_count(p);
  double rss = (double)after.ru_maxrss * 1024, cpu = bench_cpu_sec(&before, &after);
  printf("imported %.1f MB, %llu records in %.2f s: %.1f MB/s, %.2f M %s/s\n", bytes / 1e6,
         (unsigned long long)trak_processor_event_count(p), secs, bytes / 1e6 / secs,
         (double)events / 1e6 / secs, unit);
  printf("CPU time %.2f s (user + system): %.1f MB/s, %.2f M %s/s of CPU\n", cpu, bytes / 1e6 / cpu,
         (double)events / 1e6 / cpu, unit);
  printf("peak RSS: %.1f MB = %.1f bytes/%.*s (before import: %.1f MB)\n", rss / 1e6,
         rss / (double)events, (int)strlen(unit) - 1, unit, (double)before.ru_maxrss * 1024 / 1e6);
  return p;
}

/* Prints "rows: N label, N label, ..." for the first row of `sql` (each column a count,
** `labels` one per column, NULL-terminated), then frees `p` and removes `path` unless `keep`:
** how the file-import benchmarks end. */
static inline void bench_import_finish(trak_processor *p, const char *sql,
                                       const char *const *labels, const char *path, int keep) {
  trak_query *q = NULL;
  if (!trak_query_open(p, sql, &q, NULL, NULL) && q && trak_query_next(q, NULL) == 1) {
    printf("rows:");
    for (int i = 0; labels[i]; i++)
      printf("%s %lld %s", i ? "," : "", (long long)trak_query_int(q, i), labels[i]);
    printf("\n");
  }
  trak_query_free(q);
  trak_processor_free(p);
  if (!keep) remove(path);
}

#endif /* TRAK_BENCH_IMPORT_H */
