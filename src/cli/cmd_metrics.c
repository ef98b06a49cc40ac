/*
** `trak metrics TRACE --run NAME[,NAME...]`: runs built-in or user metrics (SQL files, see
** docs/analysis.md) and prints each metric's `<name>_output` table as text, csv or json.
*/
#include <stdio.h>
#include <string.h>

#include "cli/analysis_opts.h"

static const char usage[] =
    "usage: trak metrics TRACE --run NAME[,NAME...] [--metrics-dir DIR] [--param KEY=VALUE]...\n"
    "                    [--format table|csv|json|tp] [--descriptions FILE]\n"
    "Runs each metric (DIR/NAME.sql, else a built-in one) and prints its NAME_output table.\n"
    "Built-in metrics:";

static void print_usage(FILE *out) {
  fputs(usage, out);
  for (size_t i = 0; trak_metric_builtin_name(i); i++)
    fprintf(out, " %s", trak_metric_builtin_name(i));
  fputc('\n', out);
}

int trak_cli_metrics(int argc, char **argv) {
  trak_cli_analysis_opts o;
  int rc = trak_cli_analysis_parse("metrics", print_usage, argc, argv, OPT_FORMAT, &o);
  if (!o.ok) {
    trak_cli_analysis_free(&o);
    return rc;
  }
  trak_processor *p;
  if (trak_cli_analysis_run("metrics", &o, &p)) {
    trak_cli_analysis_free(&o);
    return 1;
  }
  trak_error err = {0};
  rc = 0;
  if (o.format == TRAK_CLI_JSON) fputs("{", stdout);
  for (int i = 0; i < o.n_names && !rc; i++) {
    trak_query *q;
    rc = trak_processor_metric_output(p, o.names[i], &q, &err);
    if (rc) break;
    if (o.format == TRAK_CLI_JSON) {
      printf("%s\n", i ? "," : "");
      trak_cli_json_string(stdout, o.names[i]);
      fputs(": ", stdout);
    } else if (o.format == TRAK_CLI_TABLE)
      printf("%s%s_output:\n", i ? "\n" : "", o.names[i]);
    else if (i)
      fputc('\n', stdout);
    rc = trak_cli_print_result(&(trak_cli_output){stdout, o.format, 1}, q, &err);
    trak_query_free(q);
  }
  if (o.format == TRAK_CLI_JSON && !rc) fputs("}\n", stdout);
  trak_cli_close_trace(p);
  trak_cli_analysis_free(&o);
  fflush(stdout);
  return rc ? trak_cli_fail("metrics", &err) : 0;
}
