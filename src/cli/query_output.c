/*
** This file holds the printers of query results shared by the commands that print rows
** (query, shell, metrics, alerts): `tp` (byte-compatible with trace_processor_shell -q), RFC
** 4180 `csv`, JSON, and the dispatch to the aligned table (table_output.c). Numbers in csv,
** json and table round-trip: a double prints with the fewest digits that read back to the same
** bits.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

void trak_cli_format_double(char *buf, size_t size, double v) {
  if (isnan(v)) {
    snprintf(buf, size, "nan");
    return;
  }
  if (isinf(v)) {
    snprintf(buf, size, v < 0 ? "-inf" : "inf");
    return;
  }
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  /* A double keeps looking like one ("2.0", not "2"), so readers keep its type. */
  if (!strpbrk(buf, ".e")) strncat(buf, ".0", size - strlen(buf) - 1);
}

void trak_cli_blob_hex(FILE *out, const void *data, size_t len) {
  const unsigned char *b = data;
  fputs("x'", out);
  for (size_t i = 0; i < len; i++)
    fprintf(out, "%02x", b[i]);
  fputc('\'', out);
}

/* ---- tp: what trace_processor_shell prints, kept byte for byte ------------------------- */

static void tp_value(FILE *out, trak_query *q, int col) {
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
  case TRAK_VALUE_BLOB:
    fprintf(out, "\"%s\"", trak_query_string(q, col));
    break;
  }
}

/* ---- csv: RFC 4180 ---------------------------------------------------------------------- */

/* A field is quoted when it must be (a comma, quote, CR, LF or NUL in it) and when it is empty,
** so that an empty string differs from NULL (an empty field). Quotes inside are doubled. All
** `len` bytes are written (an embedded NUL does not end the value); bytes that are not UTF-8
** are written as U+FFFD, so the output is valid UTF-8. */
static void csv_string(FILE *out, const char *str, size_t len) {
  const unsigned char *s = (const unsigned char *)str;
  int quote = !len || memchr(s, 0, len);
  for (size_t i = 0; i < len && !quote; i++)
    quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
  if (quote) fputc('"', out);
  for (size_t i = 0; i < len;) {
    unsigned cp;
    size_t n = s[i] ? trak_cli_utf8_len(s + i, &cp) : 1; /* s is NUL-terminated after len */
    if (n > len - i) n = 0;
    if (!n) {
      fputs("\xef\xbf\xbd", out);
      i++;
      continue;
    }
    if (s[i] == '"') fputc('"', out);
    fwrite(s + i, 1, n, out);
    i += n;
  }
  if (quote) fputc('"', out);
}

static void csv_value(FILE *out, trak_query *q, int col) {
  char buf[64];
  size_t len;
  switch (trak_query_type(q, col)) {
  case TRAK_VALUE_NULL:
    break;
  case TRAK_VALUE_INT:
    fprintf(out, "%lld", (long long)trak_query_int(q, col));
    break;
  case TRAK_VALUE_DOUBLE:
    trak_cli_format_double(buf, sizeof buf, trak_query_double(q, col));
    fputs(buf, out);
    break;
  case TRAK_VALUE_STRING: {
    const char *s = trak_query_string(q, col); /* first: the bytes then end with a NUL */
    trak_query_blob(q, col, &len);
    csv_string(out, s, len);
    break;
  }
  case TRAK_VALUE_BLOB: {
    const void *b = trak_query_blob(q, col, &len);
    trak_cli_blob_hex(out, b, len);
    break;
  }
  }
}

/* Prints the header (when wanted) and every row of `q` in tp or csv format. */
static int print_delimited(const trak_cli_output *o, trak_query *q, trak_error *err) {
  int ncols = trak_query_column_count(q), rc;
  int tp = o->format == TRAK_CLI_TP;
  if (o->headers) {
    for (int c = 0; c < ncols; c++) {
      if (c) fputc(',', o->out);
      if (tp)
        fprintf(o->out, "\"%s\"", trak_query_column_name(q, c));
      else
        csv_string(o->out, trak_query_column_name(q, c), strlen(trak_query_column_name(q, c)));
    }
    fputc('\n', o->out);
  }
  while ((rc = trak_query_next(q, err)) > 0) {
    for (int c = 0; c < ncols; c++) {
      if (c) fputc(',', o->out);
      if (tp)
        tp_value(o->out, q, c);
      else
        csv_value(o->out, q, c);
    }
    fputc('\n', o->out);
  }
  return rc;
}

/* ---- json ------------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if the bytes there are not one. */
size_t trak_cli_utf8_len(const unsigned char *s, unsigned *cp) {
  unsigned c = s[0];
  size_t n;
  unsigned v, min;
  if (c < 0x80) {
    *cp = c;
    return 1;
  } else if ((c & 0xe0) == 0xc0) {
    n = 2, v = c & 0x1f, min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3, v = c & 0x0f, min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0; /* also stops at the NUL */
    v = v << 6 | (s[i] & 0x3f);
  }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  *cp = v;
  return n;
}

void trak_cli_json_string(FILE *out, const char *str) {
  const unsigned char *s = (const unsigned char *)str;
  fputc('"', out);
  while (*s) {
    unsigned cp;
    size_t n = trak_cli_utf8_len(s, &cp);
    if (!n) {
      fputs("\\ufffd", out);
      s++;
      continue;
    }
    if (cp == '"' || cp == '\\')
      fprintf(out, "\\%c", (char)cp);
    else if (cp == '\n')
      fputs("\\n", out);
    else if (cp == '\t')
      fputs("\\t", out);
    else if (cp < 0x20)
      fprintf(out, "\\u%04x", cp);
    else
      fwrite(s, 1, n, out);
    s += n;
  }
  fputc('"', out);
}

static void json_value(FILE *out, trak_query *q, int col) {
  char buf[64];
  size_t len;
  switch (trak_query_type(q, col)) {
  case TRAK_VALUE_NULL:
    fputs("null", out);
    break;
  case TRAK_VALUE_INT:
    fprintf(out, "%lld", (long long)trak_query_int(q, col));
    break;
  case TRAK_VALUE_DOUBLE: {
    double v = trak_query_double(q, col);
    /* JSON has no NaN or infinity: NaN is null, an infinity the number too large for any
    ** double, which JSON readers (Python's json, JavaScript) read back as infinity. */
    if (isnan(v)) {
      fputs("null", out);
    } else if (isinf(v)) {
      fputs(v < 0 ? "-1e999" : "1e999", out);
    } else {
      trak_cli_format_double(buf, sizeof buf, v);
      fputs(buf, out);
    }
    break;
  }
  case TRAK_VALUE_STRING:
    trak_cli_json_string(out, trak_query_string(q, col));
    break;
  case TRAK_VALUE_BLOB: {
    const void *b = trak_query_blob(q, col, &len);
    fputc('"', out);
    trak_cli_blob_hex(out, b, len);
    fputc('"', out);
    break;
  }
  }
}

static int print_json(FILE *out, trak_query *q, trak_error *err) {
  int ncols = trak_query_column_count(q), rc;
  fputc('[', out);
  int first = 1;
  while ((rc = trak_query_next(q, err)) > 0) {
    fputs(first ? "\n  {" : ",\n  {", out);
    first = 0;
    for (int c = 0; c < ncols; c++) {
      if (c) fputs(", ", out);
      trak_cli_json_string(out, trak_query_column_name(q, c));
      fputs(": ", out);
      json_value(out, q, c);
    }
    fputc('}', out);
  }
  fputs(first ? "]\n" : "\n]\n", out);
  return rc;
}

int trak_cli_print_result(const trak_cli_output *o, trak_query *q, trak_error *err) {
  switch (o->format) {
  case TRAK_CLI_TABLE:
    return trak_cli_print_table(o, q, err);
  case TRAK_CLI_JSON:
    return print_json(o->out, q, err);
  default:
    return print_delimited(o, q, err);
  }
}

static const struct {
  const char *name;
  trak_cli_format format;
} format_names[] = {
    {"table", TRAK_CLI_TABLE}, {"text", TRAK_CLI_TABLE}, /* `text`: the old word of metrics */
    {"csv", TRAK_CLI_CSV},     {"json", TRAK_CLI_JSON},  {"tp", TRAK_CLI_TP},
};

int trak_cli_parse_format(const char *s, trak_cli_format *out) {
  for (size_t i = 0; i < sizeof format_names / sizeof *format_names; i++)
    if (!strcmp(s, format_names[i].name)) {
      *out = format_names[i].format;
      return 0;
    }
  return -1;
}

int trak_cli_format_option(const char *cmd, int argc, char **argv, int *i, trak_cli_format *out,
                           int *bad) {
  const char *a = argv[*i], *v;
  *bad = 0;
  if (!strncmp(a, "--format=", 9)) {
    v = a + 9;
  } else if (!strcmp(a, "--format") && *i + 1 < argc) {
    v = argv[++*i];
  } else {
    return 0;
  }
  if (trak_cli_parse_format(v, out)) {
    trak_cli_failf(cmd, "unknown format '%s' (%s)", v, TRAK_CLI_FORMATS);
    *bad = 1;
  }
  return 1;
}

int trak_cli_run_sql(const trak_cli_output *o, trak_processor *p, const char *sql,
                     trak_error *err) {
  const char *rest = sql;
  int blocks = 0;
  while (rest && *rest) {
    trak_query *q;
    int rc = trak_query_open(p, rest, &q, &rest, err);
    if (rc) return rc;
    if (!q) break;
    /* As in Perfetto's shell, a statement whose only column is named suppress_query_output
    ** runs without printing (so setup queries can say they are setup). */
    if (trak_query_column_count(q) == 0 ||
        (trak_query_column_count(q) == 1 &&
         !strcmp(trak_query_column_name(q, 0), "suppress_query_output"))) {
      while ((rc = trak_query_next(q, err)) > 0) {
      }
    } else {
      if (blocks++) fputc('\n', o->out);
      rc = trak_cli_print_result(o, q, err);
    }
    trak_query_free(q);
    if (rc < 0) return rc;
  }
  return 0;
}
