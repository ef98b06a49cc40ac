/*
** This file holds the viewer's growable text buffer and the JSON and SQL literal writers every
** answer is built with.
*/
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
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
  if (b->len + n + 1 <= b->cap && n <= 8) { /* the common case: a comma, a bracket */
    char *d = b->s + b->len;
    for (size_t i = 0; i < n; i++)
      d[i] = s[i];
    b->len += n;
    d[n] = 0;
    return;
  }
  if (reserve(b, n)) return;
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

void trak__ui_puts(trak_ui_buf *b, const char *s) {
  trak__ui_put(b, s, strlen(s));
}

void trak__ui_printf(trak_ui_buf *b, const char *fmt, ...) {
  /* One pass when the text fits the room there is (most do: a few numbers), a second after
  ** making room when not. */
  if (reserve(b, 64)) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->s[b->len] = 0;
    return;
  }
  if ((size_t)n >= b->cap - b->len) {
    if (reserve(b, (size_t)n)) {
      b->s[b->len] = 0;
      return;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  b->len += (size_t)n;
}

void trak__ui_int(trak_ui_buf *b, int64_t v) {
  if (reserve(b, 20)) return;
  static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                              "34353637383940414243444546474849505152535455565758596061626364656667"
                              "6869707172737475767778798081828384858687888990919293949596979899";
  char digits[20], *d = digits + sizeof digits;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  for (; u >= 100; u /= 100) /* two digits a division */
    d -= 2, memcpy(d, pairs + 2 * (u % 100), 2);
  if (u >= 10)
    d -= 2, memcpy(d, pairs + 2 * u, 2);
  else
    *--d = (char)('0' + u);
  char *s = b->s + b->len;
  if (v < 0) *s++ = '-';
  size_t n = (size_t)(digits + sizeof digits - d);
  memcpy(s, d, n);
  s += n;
  *s = 0;
  b->len = (size_t)(s - b->s);
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
  else if (fabs(v) < 1e15 && v == (double)(int64_t)v && !(v == 0 && signbit(v)))
    trak__ui_int(b, (int64_t)v); /* what %.17g writes for a whole number under 1e17 */
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
