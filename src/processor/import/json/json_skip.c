/*
** This file holds what the JSON reader does with an event or top-level member past one of its
** limits (nesting deeper than TRAK_LIMIT_JSON_DEPTH, an event over TRAK_LIMIT_JSON_EVENT_BYTES):
** it is reported with its place and skipped by scanning its brackets and strings alone, across
** as many fed chunks as it spans, and reading goes on after it.
*/
#include <string.h>

#include "processor/import/json/json_import.h"
#include "util/limits.h"

/* Scans the bytes of an event being skipped for its closing brace, tracking strings and
** nesting only. Returns how many bytes of [p, p + n) belong to it; the skip ends when its
** brace is found. */
static size_t skip_scan(trak_json_import *j, const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char ch = p[i];
    if (j->skip.in_string) {
      if (j->skip.escape)
        j->skip.escape = 0;
      else if (ch == '\\')
        j->skip.escape = 1;
      else if (ch == '"')
        j->skip.in_string = 0;
    } else if (ch == '"') {
      j->skip.in_string = 1;
    } else if (ch == '{' || ch == '[') {
      j->skip.depth++;
    } else if ((ch == '}' || ch == ']') && j->skip.depth && --j->skip.depth == 0) {
      j->skip.on = 0;
      return i + 1;
    }
  }
  return n;
}

/* Starts skipping an event (`event`) or a top-level member; reading goes on in state `after`. */
static void skip_begin(trak_json_import *j, int event, enum state after) {
  j->skip.on = 1;
  j->skip.depth = 0;
  j->skip.in_string = j->skip.escape = 0;
  j->skip.event = (uint8_t)event;
  j->skip.after = after;
}

/* The skip found its end. */
static void skip_done(trak_json_import *j) {
  j->event_index += j->skip.event;
  j->state = j->skip.after;
}

/* Steps over the `n` bytes at `p` of the event being skipped; returns how many it took. */
size_t trak__json_skip_bytes(trak_json_import *j, const char *p, size_t n) {
  size_t used = skip_scan(j, p, n);
  j->base = p;
  trak__json_advance(j, used);
  if (!j->skip.on) skip_done(j);
  return used;
}

/* The event at `from` (or the top-level member whose key is there) nests past the nesting
** limit: it is reported with its byte offset and skipped, scanning for its end by brackets
** alone; the trace goes on after it. Returns 1 when its end is in the buffer (c->p is then
** past it), 0 when the skip goes on into the next bytes fed. */
__attribute__((cold, noinline)) int trak__json_too_deep(trak_json_import *j, trak_json_cur *c,
                                                        const char *from) {
  int event = j->state == ST_EVENT;
  uint64_t line, col, offset = j->buf_offset + (uint64_t)(from - j->base);
  trak__json_line_col(j, from, &line, &col);
  trak__json_reader_report(
      j, TRAK_STAT_JSON_TOO_DEEP, 1, j->event_index, offset,
      "the JSON %s at byte %llu (line %llu, column %llu) nests deeper than %d levels; "
      "skipped it",
      event ? "event" : "top-level member", (unsigned long long)offset, (unsigned long long)line,
      (unsigned long long)col, TRAK_LIMIT_JSON_DEPTH);
  skip_begin(j, event, event ? ST_EVENTS_NEXT : ST_TOP_NEXT);
  size_t used = skip_scan(j, from, (size_t)(c->end - from));
  c->p = from + used;
  if (j->skip.on) return 0;
  skip_done(j);
  return 1;
}

/* The buffered, unfinished event passed the event size limit: it is reported and skipped,
** scanning its bytes for its end without keeping them, and the events after it are read. */
__attribute__((cold, noinline)) void trak__json_event_too_large(trak_json_import *j) {
  uint64_t line, col;
  j->base = j->buf;
  trak__json_line_col(j, j->buf, &line, &col);
  trak__json_reader_report(
      j, TRAK_STAT_JSON_EVENT_TOO_LARGE, 1, j->event_index, j->buf_offset,
      "the JSON event at line %llu, column %llu is over the %u MiB event limit; "
      "skipped it",
      (unsigned long long)line, (unsigned long long)col, TRAK_LIMIT_JSON_EVENT_BYTES >> 20);
  skip_begin(j, 1, ST_EVENTS_NEXT);
  size_t used = trak__json_skip_bytes(j, j->buf, j->n);
  memmove(j->buf, j->buf + used, j->n - used);
  j->n -= used;
  j->retry_at = 0;
}
