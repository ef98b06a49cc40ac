/*
** This file holds the tabular converter's input window: text read through a callback in pieces
** of about 256 KiB and handed to the readers (events_csv.c, events_jsonl.c) as whole lines, so
** a conversion of any length holds one buffer, sized by the longest row.
*/
#define _GNU_SOURCE /* memrchr */
#include <stdlib.h>
#include <string.h>

#include "writer/events_internal.h"
#include "writer/writer_internal.h"

#define FIRST_CAP (256u << 10)
#define MAX_CAP (64u << 20) /* a row longer than this is refused, not buffered */

/* Doubles the buffer. Returns 0, or TRAK_EFORMAT past MAX_CAP / TRAK_ENOMEM. */
static int grow(trak__source *s, trak__reader *r, trak_error *err) {
  if (s->cap >= MAX_CAP)
    return trak_error_set(err, TRAK_EFORMAT, "line %llu: a row longer than %u MiB",
                          (unsigned long long)r->line, MAX_CAP >> 20);
  size_t cap = s->cap ? s->cap * 2 : FIRST_CAP;
  char *buf = realloc(s->buf, cap);
  if (!buf) return trak_error_set(err, TRAK_ENOMEM, "out of memory reading the input");
  size_t p = s->buf ? (size_t)(r->p - s->buf) : 0, end = s->buf ? (size_t)(r->end - s->buf) : 0;
  s->buf = buf;
  s->cap = cap;
  r->p = buf + p;
  r->end = buf + end;
  return 0;
}

int trak__wr_source_more(trak__source *s, trak__reader *r, trak_error *err) {
  size_t seen = (size_t)(r->end - r->p);
  if (s->buf) {
    size_t keep = s->len - (size_t)(r->p - s->buf);
    memmove(s->buf, r->p, keep);
    s->len = keep;
    r->p = s->buf;
    r->end = s->buf + seen;
  }
  for (;;) {
    /* The window ends after the last newline read, so it takes as many rows as are here. */
    const char *nl = s->len > seen ? memrchr(s->buf + seen, '\n', s->len - seen) : NULL;
    if (nl) {
      r->end = nl + 1;
      return 0;
    }
    if (s->at_eof) {
      r->end = s->buf + s->len;
      r->eof = 1;
      return 0;
    }
    if (s->len == s->cap) {
      int rc = grow(s, r, err);
      if (rc) return rc;
    }
    err->code = 0;
    int64_t n = s->read(s->user, s->buf + s->len, s->cap - s->len, err);
    if (n > (int64_t)(s->cap - s->len))
      return trak_error_set(err, TRAK_EINVAL, "the read function returned %lld bytes for %zu",
                            (long long)n, s->cap - s->len);
    if (n < 0) {
      if (!err->code)
        trak_error_set(err, (int)n, "reading the input failed: %s", trak_strerror((int)n));
      return err->code;
    }
    if (n == 0)
      s->at_eof = 1;
    else
      s->len += (size_t)n;
  }
}

void trak__wr_source_free(trak__source *s) {
  free(s->buf);
  s->buf = NULL;
  s->len = s->cap = 0;
}
