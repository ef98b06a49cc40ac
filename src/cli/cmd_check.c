/*
** `trak check TRACE`: a validator for hand-written or generated traces. It imports the trace and
** lists every problem the importer finds (unknown track uuids, unbalanced or overlapping slices,
** missing interned ids, decreasing timestamps on a track, lost packets, malformed bytes, ...),
** each with its packet index and a one-line explanation. Exits 1 if any is an error.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* Problems are found in two phases (file order, then timestamp order): they are collected and
** printed by packet index, in the order found within one packet. */
typedef struct problem {
  uint64_t packet;
  size_t seq;
  char *line;
} problem;

typedef struct check_ctx {
  unsigned errors, warnings;
  problem *v;
  size_t n, cap;
} check_ctx;

static void on_problem(void *user, uint64_t packet, uint64_t offset, trak_severity severity,
                       const char *stat, const char *message) {
  check_ctx *c = user;
  if (!strcmp(stat, "trace_empty") && trak_cli_allow_empty()) return; /* asked to accept it */
  int is_error = severity == TRAK_SEVERITY_DATA_LOSS || severity == TRAK_SEVERITY_ERROR;
  if (is_error)
    c->errors++;
  else
    c->warnings++;
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 64;
    c->v = realloc(c->v, c->cap * sizeof *c->v);
    if (!c->v) abort();
  }
  char line[1024];
  snprintf(line, sizeof line, "packet %llu: %s: %s [%s]", (unsigned long long)packet,
           is_error ? "error" : "warning", message, stat);
  c->v[c->n] = (problem){packet, c->n, strdup(line)};
  c->n++;
}

static int problem_cmp(const void *a, const void *b) {
  const problem *x = a, *y = b;
  if (x->packet != y->packet) return x->packet < y->packet ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int trak_cli_check(int argc, char **argv) {
  static const char usage[] = "usage: trak check TRACE [--allow-empty]\nLists every problem in "
                              "TRACE with its packet index; exits 1 if any is an error.\n";
  if (argc == 2 && trak_cli_is_help(argv[1])) {
    fputs(usage, stdout);
    return 0;
  }
  if (argc == 2 && trak_cli_is_option(argv[1])) return trak_cli_unknown_option("check", argv[1]);
  if (argc != 2) {
    fputs(usage, stderr);
    return 2;
  }
  check_ctx c = {0};
  trak_processor *p;
  /* Opening applies the --descriptions rules: a bad rules file is a problem too. */
  int rc = trak_cli_open_trace_diag("check", argv[1], on_problem, &c, &p);
  if (c.n) qsort(c.v, c.n, sizeof *c.v, problem_cmp);
  for (size_t i = 0; i < c.n; i++) {
    puts(c.v[i].line);
    free(c.v[i].line);
  }
  free(c.v);
  if (rc) return 1;
  /* What each counted stat means, once, in words. */
  size_t n_stats = trak_processor_stat_count(p);
  for (size_t i = 0; i < n_stats; i++) {
    trak_stat st;
    if (trak_processor_stat_get(p, i, &st) == 0 && st.value > 0)
      printf("%s (%lld): %s\n", st.name, (long long)st.value, st.description);
  }
  printf("%s: %llu events, %u errors, %u warnings\n", argv[1],
         (unsigned long long)trak_processor_event_count(p), c.errors, c.warnings);
  trak_processor_free(p);
  return c.errors ? 1 : 0;
}
