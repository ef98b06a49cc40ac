/*
** This file holds the aligned table format of query results. It streams: the column widths
** come from the header and the first TABLE_SAMPLE rows, which are held; later rows print as
** they come with those widths (a wider cell just pushes its line). Widths are display columns
** (UTF-8 decoded, wide characters count two, combining marks none), and control characters and
** bytes that are not UTF-8 print escaped (\n, \t, \x01), so one row is one line.
*/
#define _XOPEN_SOURCE 700 /* wcwidth */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cli/cli.h"

#define TABLE_SAMPLE 1000

typedef struct cell {
  char *text;   /* escaped, malloc'ed */
  size_t width; /* display columns */
} cell;

typedef struct text_buf {
  char *v;
  size_t n, cap;
} text_buf;

static void put(text_buf *b, const void *data, size_t len) {
  if (b->n + len + 1 > b->cap) {
    b->cap = (b->n + len + 1) * 2;
    b->v = realloc(b->v, b->cap);
    if (!b->v) abort();
  }
  memcpy(b->v + b->n, data, len);
  b->n += len;
  b->v[b->n] = 0;
}

/* Escapes `s` for one table cell into a new string; *width receives its display width. */
static char *escape_cell(const char *str, size_t *width) {
  const unsigned char *s = (const unsigned char *)str;
  text_buf b = {0};
  size_t w = 0;
  put(&b, "", 0);
  while (*s) {
    unsigned cp;
    char esc[8];
    size_t n = trak_cli_utf8_len(s, &cp);
    if (!n || cp < 0x20 || cp == 0x7f) {
      int len = cp == '\n' && n   ? snprintf(esc, sizeof esc, "\\n")
                : cp == '\t' && n ? snprintf(esc, sizeof esc, "\\t")
                                  : snprintf(esc, sizeof esc, "\\x%02x", *s);
      put(&b, esc, (size_t)len);
      w += (size_t)len;
      s++;
      continue;
    }
    int cw = cp < 0x80 ? 1 : wcwidth((wchar_t)cp);
    w += cw < 0 ? 1 : (size_t)cw; /* unknown to the locale: assume one column */
    put(&b, s, n);
    s += n;
  }
  *width = w;
  return b.v;
}

static cell cell_of(trak_query *q, int col) {
  char buf[64];
  const char *s = buf;
  size_t len;
  cell c;
  switch (trak_query_type(q, col)) {
  case TRAK_VALUE_NULL:
    s = "[NULL]";
    break;
  case TRAK_VALUE_INT:
    snprintf(buf, sizeof buf, "%lld", (long long)trak_query_int(q, col));
    break;
  case TRAK_VALUE_DOUBLE:
    trak_cli_format_double(buf, sizeof buf, trak_query_double(q, col));
    break;
  case TRAK_VALUE_STRING:
    s = trak_query_string(q, col);
    break;
  case TRAK_VALUE_BLOB: {
    const void *data = trak_query_blob(q, col, &len);
    char *hex;
    size_t hex_len;
    FILE *m = open_memstream(&hex, &hex_len);
    if (!m) abort();
    trak_cli_blob_hex(m, data, len);
    fclose(m);
    c.text = hex, c.width = hex_len;
    return c;
  }
  }
  c.text = escape_cell(s, &c.width);
  return c;
}

/* Prints one line of cells; the last column is not padded, so no line ends in spaces. */
static void print_row(FILE *out, cell *cells, const size_t *width, int ncols) {
  for (int c = 0; c < ncols; c++) {
    if (c) fputc(' ', out);
    fputs(cells[c].text, out);
    if (c + 1 < ncols)
      for (size_t i = cells[c].width; i < width[c]; i++)
        fputc(' ', out);
    free(cells[c].text);
  }
  fputc('\n', out);
}

int trak_cli_print_table(const trak_cli_output *o, trak_query *q, trak_error *err) {
  int ncols = trak_query_column_count(q), rc = 0;
  size_t n = ncols ? (size_t)ncols : 1; /* no zero-size allocations */
  size_t *width = calloc(n, sizeof *width);
  cell *head = calloc(n, sizeof *head);
  cell *rows = malloc(n * TABLE_SAMPLE * sizeof *rows);
  if (!width || !head || !rows) abort();
  for (int c = 0; c < ncols; c++) {
    head[c].text = escape_cell(trak_query_column_name(q, c), &head[c].width);
    if (o->headers) width[c] = head[c].width;
  }
  size_t held = 0;
  while (held < TABLE_SAMPLE && (rc = trak_query_next(q, err)) > 0) {
    cell *row = rows + held++ * (size_t)ncols;
    for (int c = 0; c < ncols; c++) {
      row[c] = cell_of(q, c);
      if (row[c].width > width[c]) width[c] = row[c].width;
    }
  }
  if (o->headers && (held || rc >= 0)) { /* no header over nothing but an error */
    print_row(o->out, head, width, ncols);
    for (int c = 0; c < ncols; c++) {
      if (c) fputc(' ', o->out);
      for (size_t i = 0; i < width[c]; i++)
        fputc('-', o->out);
    }
    fputc('\n', o->out);
  } else {
    for (int c = 0; c < ncols; c++)
      free(head[c].text);
  }
  for (size_t r = 0; r < held; r++)
    print_row(o->out, rows + r * (size_t)ncols, width, ncols);
  if (held == TABLE_SAMPLE) {
    while ((rc = trak_query_next(q, err)) > 0) {
      for (int c = 0; c < ncols; c++)
        rows[c] = cell_of(q, c);
      print_row(o->out, rows, width, ncols);
    }
  }
  free(rows);
  free(head);
  free(width);
  return rc;
}
