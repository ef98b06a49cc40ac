/*
** `trak check TRACE`: a validator for hand-written or generated traces. It imports the trace and
** lists every problem the importer finds (unknown track uuids, unbalanced or overlapping slices,
** missing interned ids, decreasing timestamps on a track, lost packets, malformed bytes, ...),
** each with its packet index and a one-line explanation. Exits 1 if any is an error.
*/
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct check_ctx {
  unsigned errors, warnings;
} check_ctx;

static void on_problem(void *user, uint64_t packet, uint64_t offset, trak_severity severity,
                       const char *stat, const char *message) {
  check_ctx *c = user;
  int is_error = severity != TRAK_SEVERITY_INFO;
  if (is_error) c->errors++;
  else c->warnings++;
  printf("packet %llu: %s: %s [%s]\n", (unsigned long long)packet,
         is_error ? "error" : "warning", message, stat);
}

int trak_cli_check(int argc, char **argv) {
  if (argc != 2 || trak_cli_is_help(argv[1])) {
    fputs("usage: trak check TRACE\nLists every problem in TRACE with its packet index; exits 1 "
          "if any is an error.\n",
          argc == 2 ? stdout : stderr);
    return argc == 2 ? 0 : 2;
  }
  check_ctx c = {0, 0};
  trak_processor_options opts = {on_problem, NULL, &c};
  trak_processor *p;
  trak_error err = {0};
  if (trak_processor_open_file(argv[1], &opts, &p, &err)) return trak_cli_fail("check", &err);
  printf("%s: %llu events, %u errors, %u warnings\n", argv[1],
         (unsigned long long)trak_processor_event_count(p), c.errors, c.warnings);
  trak_processor_free(p);
  return c.errors ? 1 : 0;
}
