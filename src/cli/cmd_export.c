/*
** `trak export TRACE OUT.db`: imports a trace and writes its tables to a SQLite database file
** that any SQLite tool can open.
*/
#include <stdio.h>

#include "cli/cli.h"

int trak_cli_export(int argc, char **argv) {
  if (argc != 3) {
    if (argc == 2 && trak_cli_is_help(argv[1])) {
      fputs("usage: trak export TRACE OUT.db\n", stdout);
      return 0;
    }
    fputs("usage: trak export TRACE OUT.db\n", stderr);
    return 2;
  }
  trak_processor *p;
  if (trak_cli_open_trace("export", argv[1], &p)) return 1;
  trak_error err = {0};
  int rc = trak_processor_export(p, argv[2], &err);
  trak_processor_free(p);
  return rc ? trak_cli_fail("export", &err) : 0;
}
