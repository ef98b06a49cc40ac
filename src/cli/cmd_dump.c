/*
** `trak dump TRACE`: prints any trace trak can read as protobuf text format on stdout.
*/
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "processor/read/trace_file.h"
#include "trak/pbtxt.h"

static const char DUMP_HELP[] =
    "usage: trak dump TRACE\n"
    "\n"
    "Prints TRACE (binary or text protobuf, optionally gzip-compressed) as protobuf text\n"
    "format on stdout. Fields the schema does not know are printed by number. A malformed\n"
    "trace is printed up to the first bad byte, then reported with its offset.\n";

int trak_cli_dump(int argc, char **argv) {
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (trak_cli_is_help(argv[i])) {
      fputs(DUMP_HELP, stdout);
      return 0;
    }
    if (argv[i][0] == '-' && argv[i][1]) return trak_cli_unknown_option("dump", argv[i]);
    if (path) return trak_cli_failf("dump", "expected one TRACE (see --help)");
    path = argv[i];
  }
  if (!path) return trak_cli_failf("dump", "expected one TRACE (see --help)");

  trak_error err = {0};
  trak_trace_format format;
  uint8_t *bin;
  size_t len;
  if (trak__load_trace_binary(path, &bin, &len, &format, &err)) return trak_cli_fail("dump", &err);
  if (trak_cli_check_trace_bytes("dump", path, bin, len)) {
    free(bin);
    return 1;
  }
  trak_pb_buf text;
  trak_pb_buf_init_heap(&text);
  int rc = trak_pbtxt_print("Trace", bin, len, &text, &err);
  trak_error werr = {0};
  int wrc = trak_cli_write_file("-", text.start, trak_pb_buf_len(&text), &werr);
  trak_pb_buf_free(&text);
  free(bin);
  if (rc) {
    trak_error_prefix(&err, "%s", path);
    return trak_cli_fail("dump", &err);
  }
  return wrc ? trak_cli_fail("dump", &werr) : 0;
}
