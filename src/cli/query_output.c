/*
** This file holds the printers of query results shared by `trak query` and `trak shell`:
** csv (byte-compatible with trace_processor_shell -q), an aligned table, and JSON.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void csv_value(FILE *out, trak_query *q, int col) {
  switch (trak_query_type(q, col)) {
  case TRAK_VALUE_NULL:
    fputs("\"[NULL]\"", out);
    break;
  case TRAK_VALUE_INT:
    fprintf(out, "%lld", (long long)trak_query_int(q, col));
    break;
  case TRAK_VALUE_DOUBLE:
    fprintf(out, "%f", trak_query_double(q, col));
    break;
  case TRAK_VALUE_STRING:
    fprintf(out, "\"%s\"", trak_query_string(q, col));
    break;
  }
}

static void json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c < 0x20)
      fprintf(out, "\\u%04x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

static void json_value(FILE *out, trak_query *q, int col) {
  switch (trak_query_type(q, col)) {
  case TRAK_VALUE_NULL:
    fputs("null", out);
    break;
  case TRAK_VALUE_INT:
    fprintf(out, "%lld", (long long)trak_query_int(q, col));
    break;
  case TRAK_VALUE_DOUBLE:
    fprintf(out, "%.17g", trak_query_double(q, col));
    break;
  case TRAK_VALUE_STRING:
    json_string(out, trak_query_string(q, col));
    break;
  }
}

/* The text of a cell for the table format (malloc'ed). */
static char *cell_text(trak_query *q, int col) {
  char buf[64];
  switch (trak_query_type(q, col)) {
  case TRAK_VALUE_NULL:
    return strdup("[NULL]");
  case TRAK_VALUE_INT:
    snprintf(buf, sizeof buf, "%lld", (long long)trak_query_int(q, col));
    break;
  case TRAK_VALUE_DOUBLE:
    snprintf(buf, sizeof buf, "%f", trak_query_double(q, col));
    break;
  case TRAK_VALUE_STRING:
    return strdup(trak_query_string(q, col));
  }
  return strdup(buf);
}

static int print_table(FILE *out, trak_query *q, trak_error *err) {
  int ncols = trak_query_column_count(q);
  size_t nrows = 0, cap = 0;
  char **cells = NULL;
  size_t *width = calloc((size_t)ncols, sizeof *width);
  for (int c = 0; c < ncols; c++)
    width[c] = strlen(trak_query_column_name(q, c));
  int rc;
  while ((rc = trak_query_next(q, err)) > 0) {
    if ((nrows + 1) * (size_t)ncols > cap) {
      cap = (cap + (size_t)ncols) * 2;
      cells = realloc(cells, cap * sizeof *cells);
    }
    for (int c = 0; c < ncols; c++) {
      char *s = cell_text(q, c);
      if (strlen(s) > width[c]) width[c] = strlen(s);
      cells[nrows * (size_t)ncols + (size_t)c] = s;
    }
    nrows++;
  }
  for (int c = 0; c < ncols; c++)
    fprintf(out, "%s%-*s", c ? " " : "", (int)width[c], trak_query_column_name(q, c));
  fputc('\n', out);
  for (int c = 0; c < ncols; c++) {
    fprintf(out, "%s", c ? " " : "");
    for (size_t i = 0; i < width[c]; i++)
      fputc('-', out);
  }
  fputc('\n', out);
  for (size_t r = 0; r < nrows; r++) {
    for (int c = 0; c < ncols; c++) {
      char *s = cells[r * (size_t)ncols + (size_t)c];
      fprintf(out, "%s%-*s", c ? " " : "", (int)width[c], s);
      free(s);
    }
    fputc('\n', out);
  }
  free(cells);
  free(width);
  return rc;
}

int trak_cli_print_result(FILE *out, trak_query *q, trak_cli_format format, trak_error *err) {
  int ncols = trak_query_column_count(q), rc;
  if (format == TRAK_CLI_TABLE) return print_table(out, q, err);
  if (format == TRAK_CLI_CSV) {
    for (int c = 0; c < ncols; c++)
      fprintf(out, "%s\"%s\"", c ? "," : "", trak_query_column_name(q, c));
    fputc('\n', out);
    while ((rc = trak_query_next(q, err)) > 0) {
      for (int c = 0; c < ncols; c++) {
        if (c) fputc(',', out);
        csv_value(out, q, c);
      }
      fputc('\n', out);
    }
    return rc;
  }
  fputc('[', out);
  int first = 1;
  while ((rc = trak_query_next(q, err)) > 0) {
    fputs(first ? "\n  {" : ",\n  {", out);
    first = 0;
    for (int c = 0; c < ncols; c++) {
      if (c) fputs(", ", out);
      json_string(out, trak_query_column_name(q, c));
      fputs(": ", out);
      json_value(out, q, c);
    }
    fputc('}', out);
  }
  fputs(first ? "]\n" : "\n]\n", out);
  return rc;
}

int trak_cli_parse_format(const char *s, trak_cli_format *out) {
  if (!strcmp(s, "csv"))
    *out = TRAK_CLI_CSV;
  else if (!strcmp(s, "table"))
    *out = TRAK_CLI_TABLE;
  else if (!strcmp(s, "json"))
    *out = TRAK_CLI_JSON;
  else
    return -1;
  return 0;
}

int trak_cli_run_sql(FILE *out, trak_processor *p, const char *sql, trak_cli_format format,
                     trak_error *err) {
  const char *rest = sql;
  int blocks = 0;
  while (rest && *rest) {
    trak_query *q;
    int rc = trak_query_open(p, rest, &q, &rest, err);
    if (rc) return rc;
    if (!q) break;
    if (trak_query_column_count(q) == 0) {
      while ((rc = trak_query_next(q, err)) > 0) {
      }
    } else {
      if (blocks++) fputc('\n', out);
      rc = trak_cli_print_result(out, q, format, err);
    }
    trak_query_free(q);
    if (rc < 0) return rc;
  }
  return 0;
}
