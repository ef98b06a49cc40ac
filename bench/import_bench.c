/*
** Import benchmark of the trace processor. Generates a realistic trace (several processes and
** threads, one packet sequence per thread written in interleaved chunks as the SDK flushes them,
** nested slices with interned names and categories, debug arguments on a fifth of the slices,
** counters, flows between threads) straight to a file, then imports it with the public API and
** prints import time, events/s, MB/s, peak RSS per event, and the time of typical queries.
**
**   import_bench [EVENTS] [FILE] [import-only]
**   defaults: 10000000 events, /tmp/trak_import_bench.pb; import-only skips the queries.
**   TRAK_BENCH_KEEP=1 keeps the trace, and reads a kept one instead of writing it again.
*/
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "trak/pb.h"
#include "trak/processor.h"
#include "trak/protos.h"
#include "bench_util.h"
#include "gen_track_events.h"

static double cpu_seconds(const struct rusage *r) {
  return (double)r->ru_utime.tv_sec + r->ru_utime.tv_usec / 1e6 + (double)r->ru_stime.tv_sec +
         r->ru_stime.tv_usec / 1e6;
}

static void timed_query(trak_processor *p, const char *label, const char *sql) {
  double t0 = bench_now_sec();
  trak_query *q;
  trak_error err = {0};
  uint64_t rows = 0;
  if (trak_query_open(p, sql, &q, NULL, &err) || !q) {
    printf("  %-28s error: %s\n", label, err.message);
    return;
  }
  while (trak_query_next(q, &err) > 0)
    rows++;
  trak_query_free(q);
  printf("  %-28s %8.1f ms  (%llu rows)\n", label, (bench_now_sec() - t0) * 1e3,
         (unsigned long long)rows);
}

int main(int argc, char **argv) {
  uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
  const char *path = argc > 2 ? argv[2] : "/tmp/trak_import_bench.pb";
  double t0 = bench_now_sec();
  /* With TRAK_BENCH_KEEP a trace kept by an earlier run is read as it is, never rewritten
  ** (another process may be reading it). */
  struct stat st;
  uint64_t size;
  if (getenv("TRAK_BENCH_KEEP") && !stat(path, &st) && st.st_size > 0) {
    size = (uint64_t)st.st_size;
    printf("kept %s, %.1f MB (written for %llu events)\n", path, (double)size / 1e6,
           (unsigned long long)events);
  } else {
    size = generate(path, events);
    printf("generated %llu events, %.1f MB in %.2f s: %s\n", (unsigned long long)events,
           (double)size / 1e6, bench_now_sec() - t0, path);
  }

  struct rusage before, before_main;
  getrusage(RUSAGE_SELF, &before);
  getrusage(RUSAGE_THREAD, &before_main);
  t0 = bench_now_sec();
  trak_processor *p;
  trak_error err = {0};
  if (trak_processor_open_file(path, NULL, &p, &err)) {
    fprintf(stderr, "import failed: %s\n", err.message);
    return 1;
  }
  double secs = bench_now_sec() - t0;
  struct rusage after, after_main;
  getrusage(RUSAGE_SELF, &after);
  getrusage(RUSAGE_THREAD, &after_main);
  uint64_t n = trak_processor_event_count(p);
  double rss = (double)after.ru_maxrss * 1024;
  /* CPU time is what the import costs; wall time also counts waiting for a shared core. */
  double cpu = cpu_seconds(&after) - cpu_seconds(&before);
  printf("import: %.2f s wall, %.2f M events/s, %.1f MB/s\n", secs, (double)n / secs / 1e6,
         (double)size / secs / 1e6);
  printf("import: %.2f s CPU,  %.2f M events/s, %.1f MB/s\n", cpu, (double)n / cpu / 1e6,
         (double)size / cpu / 1e6);
  /* The importer's thread alone: with a decoding thread (TRAK_IMPORT_THREADS) it is the
  ** import's critical path, what the wall time would be with a core free for the other. */
  printf("import: %.2f s CPU on the importer's thread\n",
         cpu_seconds(&after_main) - cpu_seconds(&before_main));
  printf("peak RSS: %.1f MB = %.1f bytes/event (before import: %.1f MB)\n", rss / 1e6,
         rss / (double)n, (double)before.ru_maxrss * 1024 / 1e6);
  if (argc > 3 && !strcmp(argv[3], "import-only")) {
    trak_processor_free(p);
    if (!getenv("TRAK_BENCH_KEEP")) remove(path);
    return 0;
  }
  timed_query(p, "count slices", "SELECT COUNT(*) FROM slice");
  timed_query(p, "count by name",
              "SELECT name, COUNT(*) AS n FROM slice GROUP BY name ORDER BY n DESC LIMIT 10");
  timed_query(p, "longest slices", "SELECT id, dur FROM slice ORDER BY dur DESC LIMIT 10");
  timed_query(p, "slice x thread x process",
              "SELECT p.name, t.name, COUNT(*), SUM(s.dur) FROM slice s JOIN thread_track tt "
              "ON s.track_id = tt.id JOIN thread t USING (utid) JOIN process p USING (upid) "
              "GROUP BY 1, 2");
  timed_query(p, "extract_arg filter",
              "SELECT COUNT(*) FROM slice WHERE extract_arg(arg_set_id, 'debug.count') > 900");
  timed_query(p, "args of one slice",
              "SELECT a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id) "
              "WHERE s.id = (SELECT MAX(id) FROM slice WHERE arg_set_id IS NOT NULL)");
  timed_query(p, "ts range",
              "SELECT COUNT(*) FROM slice WHERE ts BETWEEN 1500000000 AND 1600000000");
  timed_query(p, "counter by track", "SELECT track_id, AVG(value) FROM counter GROUP BY track_id");
  timed_query(p, "flows", "SELECT COUNT(*) FROM flow");
  trak_processor_free(p);
  if (!getenv("TRAK_BENCH_KEEP")) remove(path);
  return 0;
}
