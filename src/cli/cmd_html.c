/*
** `trak html TRACE -o report.html`: writes the timeline viewer and the trace's data as one
** self-contained HTML file (src/ui/html.c) that opens from disk with no server.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "ui/ui.h"

static const char usage[] =
    "usage: trak html TRACE -o OUT.html [--max-slices N] [--max-sql-mb N]\n"
    "                 [--run METRIC[,METRIC...] [--metrics-dir DIR] [--param KEY=VALUE]...]\n"
    "Writes one HTML file holding the timeline viewer and the trace's data; it opens in a\n"
    "browser from disk, with no server and no network. A trace with more than N slices\n"
    "(default 200000) or counter values is summarised to fit, and the page says so.\n"
    "The page runs SQL over the trace's tables (SQLite in WebAssembly) when they and the\n"
    "trace take at most N MB each (default 32; 0 leaves SQL out).\n";

int trak_cli_html(int argc, char **argv) {
  const char *output = NULL;
  trak_cli_viewer_args args = {0};
  trak_ui_html_options ho = {0};
  for (int i = 1; i < argc; i++) {
    if (trak_cli_is_help(argv[i])) {
      fputs(usage, stdout);
      return 0;
    } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      output = argv[++i];
    } else if (!strcmp(argv[i], "--max-slices") && i + 1 < argc) {
      char *end;
      long long n = strtoll(argv[++i], &end, 10);
      if (*end || n < 1) return trak_cli_failf("html", "--max-slices wants a positive count");
      ho.max_slices = (size_t)n;
    } else if (!strcmp(argv[i], "--max-sql-mb") && i + 1 < argc) {
      char *end;
      long long n = strtoll(argv[++i], &end, 10);
      if (*end || n < 0 || n > 1 << 20)
        return trak_cli_failf("html", "--max-sql-mb wants a size in MB, 0 for no SQL");
      ho.no_sql = n == 0;
      ho.max_sql_bytes = (size_t)n << 20;
    } else if (!trak_cli_viewer_arg(&args, argc, argv, &i)) {
      if (trak_cli_is_option(argv[i])) return trak_cli_unknown_option("html", argv[i]);
      return trak_cli_usage_error("html", "expected one TRACE");
    }
  }
  if (!args.trace || !output) {
    fputs(usage, stderr);
    return 2;
  }
  const char *slash = strrchr(args.trace, '/');
  ho.title = slash ? slash + 1 : args.trace;
  trak_processor *p;
  if (trak_cli_viewer_open("html", &args, &p)) return 1;
  trak_error err = {0};
  trak_ui_buf page = {0};
  const char *summary = NULL;
  int rc = trak__ui_html(p, &ho, &page, &summary, &err);
  if (!rc) rc = trak_cli_write_file(output, page.s, page.len, &err);
  trak_processor_free(p);
  trak__ui_buf_free(&page);
  if (rc) return trak_cli_fail("html", &err);
  if (summary) fprintf(stderr, "trak html: %s\n", summary);
  return 0;
}
