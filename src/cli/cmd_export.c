/*
** `trak export TRACE OUT.db`: imports a trace and writes its tables to a SQLite database file
** that any SQLite tool can open.
*/
#include <stdio.h>

#include "cli/cli.h"

static const char usage[] = "usage: trak export TRACE OUT.db [--allow-empty]\n"
                            "Writes TRACE's tables to the SQLite database OUT.db (replaced).\n";

int trak_cli_export(int argc, char **argv) {
  const char *paths[2];
  int n = 0;
  for (int i = 1; i < argc; i++) {
    if (trak_cli_is_help(argv[i])) {
      fputs(usage, stdout);
      return 0;
    }
    if (trak_cli_is_option(argv[i])) return trak_cli_unknown_option("export", argv[i]);
    if (n == 2) return trak_cli_usage_error("export", "expected TRACE and OUT.db");
    paths[n++] = argv[i];
  }
  if (n != 2) {
    fputs(usage, stderr);
    return 2;
  }
  trak_processor *p;
  if (trak_cli_open_trace_brief("export", paths[0], &p)) return 1;
  trak_error err = {0};
  int rc = trak_processor_export(p, paths[1], &err);
  trak_cli_close_trace(p);
  return rc ? trak_cli_fail("export", &err) : 0;
}
