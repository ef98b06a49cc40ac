/*
** PerfettoSQL benchmark: on a trace file, prints the time to INCLUDE every module trak ships,
** the time of a query reading every column-joined row of thread_slice, the time to fill the
** modules' deferred tables on first use, and an _interval_intersect! of two levels of slices.
**
**   psql_bench FILE
** Generate FILE with `TRAK_BENCH_KEEP=1 build/import_bench 4000000 /tmp/t4m.pb import-only`
** (4 M events give about 2 M slices).
*/
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "trak/processor.h"

static double cpu_now(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return (double)r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + (double)r.ru_stime.tv_sec +
         r.ru_stime.tv_usec / 1e6;
}

static double last_cpu; /* CPU seconds of the last timed() call */

/* Runs `sql` to the end; returns its wall time in seconds and the first column of its last row,
** and leaves its CPU time (user + system) in last_cpu: on a shared machine the better figure. */
static double timed(trak_processor *p, const char *sql, long long *first) {
  trak_error err = {0};
  double t0 = bench_now_sec(), c0 = cpu_now();
  const char *rest = sql;
  while (rest && *rest) {
    trak_query *q;
    if (trak_query_open(p, rest, &q, &rest, &err)) {
      fprintf(stderr, "psql_bench: %s\n", err.message);
      exit(1);
    }
    if (!q) break;
    int rc;
    while ((rc = trak_query_next(q, &err)) > 0)
      if (first) *first = (long long)trak_query_int(q, 0);
    trak_query_free(q);
    if (rc < 0) {
      fprintf(stderr, "psql_bench: %s\n", err.message);
      exit(1);
    }
  }
  last_cpu = cpu_now() - c0;
  return bench_now_sec() - t0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: psql_bench TRACE\n");
    return 2;
  }
  trak_processor *p;
  trak_error err = {0};
  double t0 = bench_now_sec();
  if (trak_processor_open_file(argv[1], NULL, &p, &err)) {
    fprintf(stderr, "psql_bench: %s\n", err.message);
    return 1;
  }
  long long slices = 0;
  timed(p, "SELECT count(*) FROM slice", &slices);
  printf("import: %.2f s, %lld slices\n", bench_now_sec() - t0, slices);

  double include = 0, include_cpu = 0;
  int modules = 0;
  for (const char *const *m = trak_perfetto_modules_list(); *m; m++, modules++) {
    char sql[256];
    snprintf(sql, sizeof sql, "INCLUDE PERFETTO MODULE %s;", *m);
    include += timed(p, sql, NULL);
    include_cpu += last_cpu;
  }
  printf("INCLUDE of all %d modules: %.1f ms (CPU %.1f ms)\n", modules, include * 1e3,
         include_cpu * 1e3);

  long long n = 0;
  double t = timed(p,
                   "SELECT count(*), sum(dur), count(thread_name), count(process_name), "
                   "max(tid), max(depth) FROM thread_slice",
                   &n);
  printf("thread_slice, every row with its thread and process: %.3f s, CPU %.3f s (%lld rows)\n", t,
         last_cpu, n);
  t = timed(p,
            "SELECT count(*) FROM thread_slice WHERE name = (SELECT name FROM slice WHERE id = 0)",
            &n);
  printf("thread_slice filtered by name: %.3f s, CPU %.3f s (%lld rows)\n", t, last_cpu, n);

  static const char *const deferred[] = {"slice_self_dur", "_slice_flattened",
                                         "slice_with_stack_id"};
  for (size_t i = 0; i < sizeof deferred / sizeof *deferred; i++) {
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", deferred[i]);
    t = timed(p, sql, &n);
    printf("first query of %s (fills it): %.2f s, CPU %.2f s (%lld rows)\n", deferred[i], t,
           last_cpu, n);
  }
  t = timed(p,
            "SELECT count(*) FROM _interval_intersect!(("
            "(SELECT id, ts, dur, track_id FROM slice WHERE depth = 0 AND dur >= 0), "
            "(SELECT id, ts, dur, track_id FROM slice WHERE depth = 1 AND dur >= 0)), (track_id))",
            &n);
  printf("_interval_intersect! of depth-0 and depth-1 slices by track: %.2f s, CPU %.2f s (%lld "
         "rows)\n",
         t, last_cpu, n);
  trak_processor_free(p);
  return 0;
}
