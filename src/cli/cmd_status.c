/*
** `trak status [--socket PATH]`: what the system tracing daemon has — the processes connected
** to it with the data sources they registered, and the sessions recording (trak_system_query).
*/
#include <stdio.h>
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

static void print_producers(const trak_service_state *st) {
  printf("producers: %zu\n", st->n_producers);
  if (!st->n_producers) return;
  printf("  %-8s %-6s %-16s %-8s %s\n", "pid", "uid", "name", "sessions", "data sources");
  for (size_t i = 0; i < st->n_producers; i++) {
    const trak_producer_info *p = &st->producers[i];
    printf("  %-8d %-6d %-16s %-8u", (int)p->pid, (int)p->uid, p->name, p->sessions);
    for (size_t k = 0; p->data_sources && p->data_sources[k]; k++)
      printf("%s%s", k ? ", " : " ", p->data_sources[k]);
    putchar('\n');
  }
}

static void print_sessions(const trak_service_state *st) {
  printf("sessions: %zu\n", st->n_sessions);
  if (!st->n_sessions) return;
  printf("  %-6s %-6s %-9s %-10s %-14s %s\n", "id", "uid", "producers", "chunks", "bytes written",
         "packets lost");
  for (size_t i = 0; i < st->n_sessions; i++) {
    const trak_session_info *s = &st->sessions[i];
    printf("  %-6u %-6d %-9u %-10llu %-14llu %llu\n", s->id, (int)s->uid, s->producers,
           (unsigned long long)s->chunks, (unsigned long long)s->bytes_written,
           (unsigned long long)s->packets_lost);
  }
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
      return trak_cli_failf("status", "unknown option %s (see --help)", argv[i]);
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
