/*
** This file holds the viewer's growable text buffer and the JSON and SQL literal writers every
** answer is built with.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui.h"

/* Makes room for `n` more bytes and the NUL. Returns 0, or -1 (and sets oom) on failure. */
static int reserve(trak_ui_buf *b, size_t n) {
  if (b->oom) return -1;
  if (b->len + n + 1 <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + n + 1)
    cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) {
    b->oom = 1;
    return -1;
  }
  b->s = s;
  b->cap = cap;
  return 0;
}

void trak__ui_put(trak_ui_buf *b, const char *s, size_t n) {
  if (reserve(b, n)) return;
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

void trak__ui_puts(trak_ui_buf *b, const char *s) {
  trak__ui_put(b, s, strlen(s));
}

void trak__ui_printf(trak_ui_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void trak__ui_json_str(trak_ui_buf *b, const char *s) {
  if (!s) {
    trak__ui_puts(b, "null");
    return;
  }
  trak__ui_put(b, "\"", 1);
  const char *run = s; /* start of the bytes not yet written that need no escape */
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c >= 0x20 && c != '"' && c != '\\' && c != '<') continue;
    trak__ui_put(b, run, (size_t)(s - run));
    run = s + 1;
    if (c == '"' || c == '\\')
      trak__ui_printf(b, "\\%c", c);
    else if (c == '\n')
      trak__ui_puts(b, "\\n");
    else if (c == '\t')
      trak__ui_puts(b, "\\t");
    else
      trak__ui_printf(b, "\\u%04x", c);
  }
  trak__ui_put(b, run, (size_t)(s - run));
  trak__ui_put(b, "\"", 1);
}

void trak__ui_json_double(trak_ui_buf *b, double v) {
  if (!isfinite(v))
    trak__ui_puts(b, "null");
  else
    trak__ui_printf(b, "%.17g", v);
}

void trak__ui_sql_str(trak_ui_buf *b, const char *s) {
  trak__ui_put(b, "'", 1);
  for (const char *q; (q = strchr(s, '\'')); s = q + 1) {
    trak__ui_put(b, s, (size_t)(q - s) + 1);
    trak__ui_put(b, "'", 1);
  }
  trak__ui_puts(b, s);
  trak__ui_put(b, "'", 1);
}

void trak__ui_buf_free(trak_ui_buf *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}
