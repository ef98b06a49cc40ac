/*
** `trak status [--socket PATH]`: what the system tracing daemon has — the processes connected
** to it with the data sources they registered, and the sessions recording (trak_system_query).
*/
#define _GNU_SOURCE /* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trak/system.h"

static const char STATUS_HELP[] =
    "usage: trak status [--socket PATH]\n"
    "\n"
    "Lists the processes connected to `trak daemon` (pid, uid, name, the sessions recording\n"
    "them, their data sources) and the sessions recording (id, recorder's uid, producers,\n"
    "chunks copied, bytes written, packets lost). Unless run as root, only those of your own\n"
    "uid are listed. Exits 1 when no daemon answers.\n";

/* Prints rows of `ncols` cells (row 0 the header) in columns as wide as their widest cell,
** so long names never push a column out of line; the last column is not padded. Frees the
** cells. */
static void print_grid(char **cells, size_t nrows, size_t ncols) {
  size_t width[8] = {0};
  for (size_t r = 0; r < nrows; r++)
    for (size_t c = 0; c < ncols; c++)
      if (strlen(cells[r * ncols + c]) > width[c]) width[c] = strlen(cells[r * ncols + c]);
  for (size_t r = 0; r < nrows; r++) {
    fputs(" ", stdout);
    for (size_t c = 0; c < ncols; c++) {
      char *cell = cells[r * ncols + c];
      printf(" %-*s", c + 1 < ncols ? (int)width[c] : 0, cell);
      free(cell);
    }
    putchar('\n');
  }
}

static char *cellf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *cellf(const char *fmt, ...) {
  va_list ap;
  char *s;
  va_start(ap, fmt);
  if (vasprintf(&s, fmt, ap) < 0) abort();
  va_end(ap);
  return s;
}

static void print_producers(const trak_service_state *st) {
  printf("producers: %zu\n", st->n_producers);
  if (!st->n_producers) return;
  enum { N = 5 };
  char **cells = malloc((st->n_producers + 1) * N * sizeof *cells);
  if (!cells) abort();
  const char *head[N] = {"pid", "uid", "name", "sessions", "data sources"};
  for (size_t c = 0; c < N; c++)
    cells[c] = strdup(head[c]);
  for (size_t i = 0; i < st->n_producers; i++) {
    const trak_producer_info *p = &st->producers[i];
    char **row = cells + (i + 1) * N;
    row[0] = cellf("%d", (int)p->pid);
    row[1] = cellf("%d", (int)p->uid);
    row[2] = cellf("%s", p->name);
    row[3] = cellf("%u", p->sessions);
    row[4] = cellf("%s", "");
    for (size_t k = 0; p->data_sources && p->data_sources[k]; k++) {
      char *joined = cellf("%s%s%s", row[4], k ? ", " : "", p->data_sources[k]);
      free(row[4]);
      row[4] = joined;
    }
  }
  print_grid(cells, st->n_producers + 1, N);
  free(cells);
}

static void print_sessions(const trak_service_state *st) {
  printf("sessions: %zu\n", st->n_sessions);
  if (!st->n_sessions) return;
  enum { N = 6 };
  char **cells = malloc((st->n_sessions + 1) * N * sizeof *cells);
  if (!cells) abort();
  const char *head[N] = {"id", "uid", "producers", "chunks", "bytes written", "packets lost"};
  for (size_t c = 0; c < N; c++)
    cells[c] = strdup(head[c]);
  for (size_t i = 0; i < st->n_sessions; i++) {
    const trak_session_info *s = &st->sessions[i];
    char **row = cells + (i + 1) * N;
    row[0] = cellf("%u", s->id);
    row[1] = cellf("%d", (int)s->uid);
    row[2] = cellf("%u", s->producers);
    row[3] = cellf("%llu", (unsigned long long)s->chunks);
    row[4] = cellf("%llu", (unsigned long long)s->bytes_written);
    row[5] = cellf("%llu", (unsigned long long)s->packets_lost);
  }
  print_grid(cells, st->n_sessions + 1, N);
  free(cells);
}

int trak_cli_status(int argc, char **argv) {
  const char *socket_path = NULL;
  for (int i = 1; i < argc; i++) {
    if (trak_cli_is_help(argv[i])) {
      fputs(STATUS_HELP, stdout);
      return 0;
    }
    if (i + 1 < argc && !strcmp(argv[i], "--socket"))
      socket_path = argv[++i];
    else
      return trak_cli_unknown_option("status", argv[i]);
  }
  trak_service_state *st;
  trak_error err = {0};
  if (trak_system_query(socket_path, &st, &err) != 0) return trak_cli_fail("status", &err);
  print_producers(st);
  print_sessions(st);
  if (st->truncated) printf("(more than fits one answer: the lists stop early)\n");
  trak_service_state_free(st);
  return 0;
}
