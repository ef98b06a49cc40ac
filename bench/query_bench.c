/*
** Query benchmark of the trace processor (issue 29): imports a trace (not timed), then runs each
** query of a query-set file several times and prints its best and median time inside the
** process, its row count and a checksum of its answer (so two builds can be checked to give the
** same answers). bench/query_set.sql holds the set; bench/import_bench generates the traces.
**
**   query_bench TRACE [QUERY_FILE] [RUNS] [NAME]
**   defaults: bench/query_set.sql next to this source (as built), 5 runs; NAME runs only the
**   query of that name (e.g. under perf). With TRAK_BENCH_CPU=1 in the environment the times are
**   the process's CPU time (user + system) instead of wall time, for a loaded machine.
*/
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trak/processor.h"
#include "bench_util.h"

#define QUERY_MARK "-- query: "

/* Runs every statement of `sql`; the rows of the last one are counted and hashed into *sum.
** Returns 0, or -1 after printing the error. */
__attribute__((noinline)) static int run_block(trak_processor *p, const char *sql, uint64_t *rows,
                                               uint64_t *sum) {
  const char *rest = sql;
  *rows = 0;
  *sum = 1469598103934665603ull;
  while (rest && *rest) {
    trak_query *q = NULL;
    trak_error err = {0};
    if (trak_query_open(p, rest, &q, &rest, &err)) {
      fprintf(stderr, "query error: %s\n", err.message);
      return -1;
    }
    if (!q) break;
    *rows = 0;
    *sum = 1469598103934665603ull;
    int n = trak_query_column_count(q), rc;
    while ((rc = trak_query_next(q, &err)) > 0) {
      (*rows)++;
      for (int c = 0; c < n; c++) {
        const char *s = trak_query_string(q, c);
        for (s = s ? s : "\x01NULL"; *s; s++)
          *sum = (*sum ^ (uint8_t)*s) * 1099511628211ull;
        *sum = (*sum ^ 0xff) * 1099511628211ull;
      }
    }
    trak_query_free(q);
    if (rc < 0) {
      fprintf(stderr, "query error: %s\n", err.message);
      return -1;
    }
  }
  return 0;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "%s: cannot read\n", path);
    exit(1);
  }
  s[n] = 0;
  fclose(f);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: query_bench TRACE [QUERY_FILE] [RUNS] [NAME]\n");
    return 2;
  }
  const char *qpath = argc > 2 && *argv[2] ? argv[2] : TRAK_QUERY_SET;
  int runs = argc > 3 ? atoi(argv[3]) : 5;
  if (runs < 1 || runs > 100) runs = 5;
  mallopt(M_MXFAST, 0); /* as the trak command does (src/cli/main.c) */
  char *text = read_file(qpath);
  const char *cpu_env = getenv("TRAK_BENCH_CPU");
  double (*clock_sec)(void) = cpu_env && *cpu_env == '1' ? bench_process_cpu_sec : bench_now_sec;
  double t0 = bench_now_sec();
  trak_processor *p;
  trak_error err = {0};
  if (trak_processor_open_file(argv[1], NULL, &p, &err)) {
    fprintf(stderr, "%s: import failed: %s\n", argv[1], err.message);
    return 1;
  }
  printf("imported %s: %llu events in %.2f s (not counted below)\n", argv[1],
         (unsigned long long)trak_processor_event_count(p), bench_now_sec() - t0);
  printf("%-22s %10s %10s %8s  %s%s\n", "query", "best ms", "median ms", "rows", "checksum",
         clock_sec == bench_process_cpu_sec ? "  (CPU time)" : "");
  double logsum = 0;
  int nq = 0;
  for (char *at = strstr(text, QUERY_MARK); at;) {
    char *name = at + strlen(QUERY_MARK), *eol = strchr(name, '\n');
    if (!eol) break;
    *eol = 0;
    char *next = strstr(eol + 1, QUERY_MARK);
    if (next) next[-1] = 0; /* the block ends before the next mark's line */
    if (argc > 4 && strcmp(name, argv[4])) {
      at = next;
      continue;
    }
    double times[100];
    uint64_t rows = 0, sum = 0;
    for (int r = 0; r < runs; r++) {
      double s = clock_sec();
      if (run_block(p, eol + 1, &rows, &sum)) return 1;
      times[r] = (clock_sec() - s) * 1e3;
    }
    qsort(times, (size_t)runs, sizeof *times, bench_cmp_double);
    printf("%-22s %10.2f %10.2f %8llu  %016llx\n", name, times[0], times[runs / 2],
           (unsigned long long)rows, (unsigned long long)sum);
    logsum += log(times[runs / 2] > 0.001 ? times[runs / 2] : 0.001);
    nq++;
    at = next;
  }
  if (nq) printf("geometric mean of medians: %.2f ms over %d queries\n", exp(logsum / nq), nq);
  trak_processor_free(p);
  free(text);
  return 0;
}
