/*
** `trak dump TRACE`: prints any trace trak can read as protobuf text format on stdout,
** streaming it packet by packet.
*/
#include <string.h>

#include "cli/cli.h"

static const char DUMP_HELP[] =
    "usage: trak dump TRACE\n"
    "\n"
    "Prints TRACE (binary or text protobuf, optionally gzip-compressed) as protobuf text\n"
    "format on stdout, one packet at a time. Fields the schema does not know are printed by\n"
    "number. A packet that does not decode or passes a limit (docs/limits.md) is reported\n"
    "with its offset and skipped; a malformed trace is printed up to the first bad byte.\n"
    "Either way the exit status is 1. A JSON trace prints as `trak convert` makes it\n"
    "protobuf.\n";

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

  trak_cli_trace_out out;
  trak_error err = {0};
  if (trak_cli_trace_out_open(&out, "-", TRAK_FORMAT_PBTXT, &err))
    return trak_cli_fail("dump", &err);
  trak_trace_format format;
  int rc = trak_cli_read_packets("dump", path, trak_cli_trace_out_field, &out, &format);
  int wrc = trak_cli_trace_out_close(&out, &err);
  if (rc) return rc;
  if (wrc) return trak_cli_fail("dump", &err);
  /* A JSON or systrace text trace prints as what convert makes of it. */
  if (trak__format_imported(format))
    return trak_cli_json_to_pb("dump", path, TRAK_FORMAT_PBTXT, "-");
  return 0;
}
