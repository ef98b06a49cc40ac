/*
** This file holds the CSV reader of the tabular event converter: a header line names the
** columns, each later record is one row. Cells follow RFC 4180 (commas, double-quoted cells
** with "" for a quote, quoted newlines, CRLF or LF); a quote inside an unquoted cell is an
** ordinary character, so track paths like process 1 "app"/thread 2 "main" need no quoting.
** Blank lines and lines starting with '#' are skipped. Cells are untyped text.
*/
#include <string.h>

#include "writer/events_internal.h"
#include "writer/writer_internal.h"

/* A growable list of cells being read, in the arena. */
typedef struct cells {
  trak__val *v;
  size_t n, cap;
} cells;

/* Appends a cell whose NUL-terminated text already lives in the arena. */
static int push_text(trak__arena *a, cells *c, const char *text, size_t len) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    trak__val *v = trak__wr_arena_alloc(a, cap * sizeof *v);
    if (!v) return TRAK_ENOMEM;
    if (c->n) memcpy(v, c->v, c->n * sizeof *v);
    c->v = v;
    c->cap = cap;
  }
  c->v[c->n++] = (trak__val){.type = TRAK__V_TEXT, .str = text, .len = len};
  return 0;
}

/* Appends a copy of [s, s + len) as a cell. */
static int push_cell(trak__arena *a, cells *c, const char *s, size_t len) {
  char *copy = trak__wr_arena_alloc(a, len + 1);
  if (!copy) return TRAK_ENOMEM;
  memcpy(copy, s, len);
  copy[len] = 0;
  return push_text(a, c, copy, len);
}

/* Trims spaces and tabs around an unquoted cell. */
static void trim(const char **s, size_t *len) {
  while (*len && (**s == ' ' || **s == '\t'))
    (*s)++, (*len)--;
  while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' || (*s)[*len - 1] == '\r'))
    (*len)--;
}

/* Skips to just past the next newline (error recovery). */
static void skip_line(trak__reader *r) {
  const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
  r->p = nl ? nl + 1 : r->end;
  r->line++;
}

/* Skips blank and comment lines. */
static void skip_blank(trak__reader *r) {
  while (r->p < r->end) {
    const char *q = r->p;
    while (q < r->end && (*q == ' ' || *q == '\t' || *q == '\r'))
      q++;
    if (q < r->end && *q != '\n' && *q != '#') return;
    skip_line(r);
  }
}

/* Reads one record into `c`. Returns 1, 0 at the end of the text, TRAK__NEED_MORE when a
** quoted cell goes on past the window (r is left at the record's start), or TRAK_EFORMAT /
** ENOMEM. */
static int read_record(trak__reader *r, trak__arena *a, cells *c, trak_error *err) {
  skip_blank(r);
  if (r->p >= r->end) return r->eof ? 0 : TRAK__NEED_MORE;
  const char *start = r->p;
  uint64_t start_line = r->line;
  for (;;) {
    const char *p = r->p;
    while (p < r->end && (*p == ' ' || *p == '\t'))
      p++;
    int rc;
    if (p < r->end && *p == '"') {
      /* Quoted cell: find its closing quote, then unescape "" into the arena. */
      const char *q = p + 1;
      uint64_t newlines = 0;
      for (;; q++) {
        if (q >= r->end && !r->eof) {
          r->p = start;
          r->line = start_line;
          return TRAK__NEED_MORE;
        }
        if (q >= r->end) {
          r->p = r->end;
          return trak_error_set(err, TRAK_EFORMAT, "line %llu: unterminated quoted cell",
                                (unsigned long long)start_line);
        }
        if (*q == '"' && q + 1 < r->end && q[1] == '"')
          q++;
        else if (*q == '"')
          break;
        else if (*q == '\n')
          newlines++;
      }
      char *buf = trak__wr_arena_alloc(a, (size_t)(q - p));
      if (!buf) return TRAK_ENOMEM;
      size_t len = 0;
      for (p++; p < q; p++) {
        buf[len++] = *p;
        if (*p == '"') p++; /* the second quote of "" */
      }
      buf[len] = 0;
      p = q + 1;
      r->line += newlines;
      while (p < r->end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
      if (p < r->end && *p != ',' && *p != '\n') {
        r->p = p;
        uint64_t line = r->line;
        skip_line(r);
        return trak_error_set(err, TRAK_EFORMAT, "line %llu: unexpected '%c' after a quoted cell",
                              (unsigned long long)line, *p);
      }
      rc = push_text(a, c, buf, len);
    } else {
      const char *s = p;
      while (p < r->end && *p != ',' && *p != '\n')
        p++;
      size_t len = (size_t)(p - s);
      trim(&s, &len);
      rc = push_cell(a, c, s, len);
    }
    if (rc) return rc;
    if (p < r->end && *p == ',') {
      r->p = p + 1;
      continue;
    }
    r->p = p < r->end ? p + 1 : p;
    r->line++;
    return 1;
  }
}

static int csv_next(trak__reader *r, trak__arena *a, trak__row *row, trak_error *err) {
  cells c = {0};
  skip_blank(r);
  row->line = r->line;
  int rc = read_record(r, a, &c, err);
  if (rc <= 0 || rc == TRAK__NEED_MORE) return rc;
  if (c.n > r->n_header) {
    return trak_error_set(err, TRAK_EFORMAT, "line %llu: %zu cells, but the header has %zu columns",
                          (unsigned long long)row->line, c.n, r->n_header);
  }
  row->keys = r->header;
  row->vals = c.v;
  row->n = c.n;
  return 1;
}

void trak__wr_csv_reader_init(trak__reader *r) {
  r->next = csv_next;
}

int trak__wr_csv_read_header(trak__reader *r, trak_error *err) {
  cells c = {0};
  trak__wr_arena_reset(&r->header_arena); /* a retry after NEED_MORE starts over */
  int rc = read_record(r, &r->header_arena, &c, err);
  if (rc < 0 || rc == TRAK__NEED_MORE) return rc;
  if (rc == 0) return trak_error_set(err, TRAK_EFORMAT, "line 1: no header line");
  r->header = trak__wr_arena_alloc(&r->header_arena, c.n * sizeof *r->header);
  if (!r->header) return TRAK_ENOMEM;
  for (size_t i = 0; i < c.n; i++) {
    if (!c.v[i].len)
      return trak_error_set(err, TRAK_EFORMAT, "line %llu: header column %zu has no name",
                            (unsigned long long)r->line - 1, i + 1);
    for (size_t j = 0; j < i; j++)
      if (!strcmp(r->header[j], c.v[i].str))
        return trak_error_set(err, TRAK_EFORMAT, "line %llu: header names column '%s' twice",
                              (unsigned long long)r->line - 1, c.v[i].str);
    r->header[i] = c.v[i].str;
  }
  r->n_header = c.n;
  return 0;
}

void trak__wr_reader_free(trak__reader *r) {
  trak__wr_arena_free(&r->header_arena);
}
