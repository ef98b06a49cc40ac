/*
** This file holds the systrace text writer (see systrace_write.h): a growing text buffer, the
** exact timestamp text, and the prefix of an event line checked against the line parser.
*/
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/util/systrace_line.h"
#include "processor/util/systrace_write.h"

static void reserve(trak_textbuf *b, size_t more) {
  if (b->len + more + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + more + 1)
    cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) abort();
  b->s = s;
  b->cap = cap;
}

void trak__textbuf_printf(trak_textbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void trak__textbuf_put_text(trak_textbuf *b, const char *s, size_t n) {
  reserve(b, n);
  for (size_t i = 0; i < n; i++)
    b->s[b->len + i] = (unsigned char)s[i] < 0x20 ? ' ' : s[i];
  b->len += n;
  b->s[b->len] = '\0';
}

void trak__textbuf_free(trak_textbuf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}

size_t trak__systrace_ts_format(int64_t ns, char out[32]) {
  int n = snprintf(out, 32, "%" PRId64 ".%09" PRId64, ns / 1000000000, ns % 1000000000);
  /* The parser reads the text with strtod and truncates: when the nearest double lies below
  ** the nanosecond, half a nanosecond more makes it read back exactly. */
  if ((int64_t)(strtod(out, NULL) * 1e9) != ns) out[n++] = '5', out[n] = '\0';
  return (size_t)n;
}

/* Writes the prefix with the task name as given (dashes as '_' when `underscores`) and the
** seconds text `secs`. */
static void prefix(trak_textbuf *b, const char *task, int64_t tid, int64_t tgid, uint32_t cpu,
                   const char *secs, const char *event, int underscores) {
  size_t n = strlen(task);
  if (n < 16) trak__textbuf_printf(b, "%*s", (int)(16 - n), "");
  size_t at = b->len;
  trak__textbuf_put_text(b, task, n);
  if (underscores)
    for (size_t i = at; i < b->len; i++)
      if (b->s[i] == '-') b->s[i] = '_';
  trak__textbuf_printf(b, "-%-5" PRId64 " (", tid);
  if (tgid < 0)
    trak__textbuf_printf(b, "-----");
  else
    trak__textbuf_printf(b, "%5" PRId64, tgid);
  trak__textbuf_printf(b, ") [%03u] .... %s: %s:", cpu, secs, event);
}

void trak__systrace_prefix_write(trak_textbuf *b, const char *task, int64_t tid, int64_t tgid,
                                 uint32_t cpu, int64_t ts, const char *event) {
  if (!task || !*task) task = "<...>";
  size_t start = b->len;
  char secs[32];
  trak__systrace_ts_format(ts < 0 ? 0 : ts, secs);
  prefix(b, task, tid, tgid, cpu, secs, event, 0);
  trak_systrace_line l;
  size_t n = strlen(task), pad = n < 16 ? 16 - n : 0;
  if (trak__systrace_line_parse(b->s + start, b->len - start, &l) == 0 &&
      l.task.s == b->s + start + pad && l.task.len == n && l.pid == (uint32_t)tid)
    return;
  b->len = start;
  prefix(b, task, tid, tgid, cpu, secs, event, 1);
}

void trak__ftrace_prefix_write(trak_textbuf *b, const char *task, int64_t tid, int64_t tgid,
                               uint32_t cpu, int64_t ts, const char *event) {
  if (tid == 0)
    task = "<idle>";
  else if (!task || !*task)
    task = "<unknown>";
  int64_t s = ts / 1000000000;
  char secs[48];
  snprintf(secs, sizeof secs, "%" PRId64 ".%06" PRId64, s, (ts - s * 1000000000) / 1000);
  prefix(b, task, tid, tgid, cpu, secs, event, 1);
}
