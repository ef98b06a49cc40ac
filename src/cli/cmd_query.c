/*
** `trak query TRACE 'SQL'` / `trak query TRACE -q FILE`: imports a trace and prints the result
** of every statement that returns rows: by default as trace_processor_shell -q prints them
** (`tp`), or as RFC 4180 csv, an aligned table or JSON.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char usage[] =
    "usage: trak query TRACE ['SQL' | -q FILE] [--format tp|csv|table|json] [--allow-empty]\n"
    "                  [--run METRIC[,METRIC...] [--metrics-dir DIR] [--param KEY=VALUE]...]\n"
    "Imports TRACE (binary or text protobuf or JSON, gzip or not) and runs the SQL. Each\n"
    "statement that returns rows prints its result; results are separated by an empty line.\n"
    "Formats: tp (the default) is what Perfetto's trace_processor_shell prints; csv is RFC\n"
    "4180 (quotes doubled, NULL an empty field, doubles exact), for scripts; table aligns\n"
    "columns (`text` is the same); json is an array of objects. With --run the metrics run\n"
    "first, so their tables, annotation tracks and alerts can be queried.\n";

static char *read_text(const char *path, trak_error *err) {
  FILE *f = !strcmp(path, "-") ? stdin : fopen(path, "rb");
  if (!f) {
    trak_error_set(err, TRAK_EIO, "%s: cannot open", path);
    return NULL;
  }
  size_t n = 0, cap = 4096;
  char *s = malloc(cap);
  size_t got;
  while (s && (got = fread(s + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (cap - n - 1 == 0) s = realloc(s, cap *= 2);
  }
  if (f != stdin) fclose(f);
  if (!s) {
    trak_error_set(err, TRAK_ENOMEM, "out of memory");
    return NULL;
  }
  s[n] = 0;
  return s;
}

int trak_cli_query(int argc, char **argv) {
  const char *trace = NULL, *sql_arg = NULL, *sql_file = NULL;
  trak_cli_output out = {stdout, TRAK_CLI_TP, 1};
  trak_cli_metric_args metrics = {0};
  for (int i = 1; i < argc; i++) {
    int bad;
    if (trak_cli_is_help(argv[i])) {
      fputs(usage, stdout);
      return 0;
    } else if ((!strcmp(argv[i], "-q") || !strcmp(argv[i], "--query-file")) && i + 1 < argc) {
      sql_file = argv[++i];
    } else if (trak_cli_format_option("query", argc, argv, &i, &out.format, &bad)) {
      if (bad) return 2;
    } else if (trak_cli_metric_arg(&metrics, argc, argv, &i)) {
      continue;
    } else if (trak_cli_is_option(argv[i])) {
      return trak_cli_unknown_option("query", argv[i]);
    } else if (!trace) {
      trace = argv[i];
    } else if (!sql_arg) {
      sql_arg = argv[i];
    } else {
      return trak_cli_usage_error("query", "too many arguments");
    }
  }
  if (!trace || (!sql_arg == !sql_file)) {
    fputs(usage, stderr);
    return 2;
  }
  trak_error err = {0};
  char *sql = sql_file ? read_text(sql_file, &err) : strdup(sql_arg);
  if (!sql) return trak_cli_fail("query", &err);
  trak_processor *p;
  if (trak_cli_open_trace_brief("query", trace, &p)) {
    free(sql);
    return 1;
  }
  int rc = trak_cli_metric_args_run(&metrics, p, &err);
  if (!rc) rc = trak_cli_run_sql(&out, p, sql, &err);
  free(sql);
  trak_cli_close_trace(p);
  fflush(stdout);
  return rc ? trak_cli_fail("query", &err) : 0;
}
