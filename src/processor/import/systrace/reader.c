/*
** This file holds the systrace text reader: bytes fed in any split are cut into lines; the
** file's layout (adb's "TRACE:" banner, trace-cmd's "cpus=N", HTML trace-data sections, ps
** output) says what each line is, as Perfetto reads it; event lines are parsed and go to
** events.c, ps rows to ps_rows.c, and lines that do not parse are counted with their
** line number. Memory: one unfinished line.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/systrace/systrace_import.h"
#include "util/limits.h"

trak_systrace_import *trak__systrace_import_new(trak_importer *imp, trak_systrace_kind kind) {
  trak_systrace_import *s = calloc(1, sizeof *s);
  if (!s) abort();
  s->imp = imp;
  s->kind = kind;
  s->section = TRAK_SYSTRACE_EVENTS;
  s->started = kind == TRAK_SYSTRACE_JSON; /* the string has no banner nor cpus=N line */
  return s;
}

void trak__systrace_import_free(trak_systrace_import *s) {
  if (!s) return;
  trak_vec_free(s->part);
  free(s);
}

size_t trak__systrace_import_events(const trak_systrace_import *s) {
  return s->events;
}

__attribute__((cold, noinline)) static void line_problem(trak_systrace_import *s, trak_stat_id stat,
                                                         uint64_t line_no, const char *why) {
  s->imp->packet_index = line_no;
  trak__report(s->imp, stat, "systrace line %llu: %s; skipped it", (unsigned long long)line_no,
               why);
}

void trak__systrace_failure(trak_systrace_import *s, uint64_t line_no, const char *why) {
  line_problem(s, TRAK_STAT_SYSTRACE_PARSE_FAILURE, line_no, why);
}

void trak__systrace_unparsed(trak_systrace_import *s, uint64_t line_no, const char *why) {
  line_problem(s, TRAK_STAT_SYSTRACE_EVENT_UNPARSED, line_no, why);
}

/* One whole line (without its '\n'), line number s->line_no, at text offset `offset`. */
static void line_read(trak_systrace_import *s, const char *line, size_t len, uint64_t offset) {
  trak_systrace_line_kind kind;
  if (s->kind == TRAK_SYSTRACE_JSON)
    kind = len == 0 || line[0] == '#' ? TRAK_SYSTRACE_SKIP : TRAK_SYSTRACE_EVENT;
  else
    kind = trak__systrace_text_line(&s->section, line, len);
  if (TRAK_LIKELY(kind == TRAK_SYSTRACE_EVENT)) {
    trak_systrace_line parsed;
    int rc = trak__systrace_line_parse(line, len, &parsed);
    s->imp->packet_offset = offset;
    s->imp->packet_index = s->line_no;
    if (TRAK_LIKELY(rc == 0)) {
      /* One event line is one event, however many records the sink makes of it. */
      uint64_t n_events = s->imp->n_events;
      s->events++;
      trak__systrace_event_apply(s, &parsed, s->line_no);
      s->imp->n_events = n_events + 1;
      return;
    }
    trak__systrace_failure(s, s->line_no, trak__systrace_line_error(rc));
  } else if (kind != TRAK_SYSTRACE_SKIP) {
    s->imp->packet_offset = offset;
    s->imp->packet_index = s->line_no;
    trak__systrace_ps_row(s, kind, line, len);
  }
}

/* A line over the text packet limit: counted, and its bytes up to the next '\n' dropped as
** they come. */
__attribute__((cold, noinline)) static void line_too_long(trak_systrace_import *s) {
  s->imp->packet_offset = s->offset - s->part.n;
  trak__systrace_failure(s, s->line_no + 1, "the line is over the text packet limit");
  s->part.n = 0;
  s->skipping = 1;
}

/* Cuts [data, data + len) into lines; the unfinished last one waits in s->part. */
static void lines_cut(trak_systrace_import *s, const char *data, size_t len) {
  const char *end = data + len;
  while (data < end && s->section != TRAK_SYSTRACE_DONE) {
    const char *nl = memchr(data, '\n', (size_t)(end - data));
    if (!nl) {
      if (!s->skipping) {
        trak__grow((void **)&s->part.v, &s->part.cap, s->part.n + (size_t)(end - data), 1);
        memcpy(s->part.v + s->part.n, data, (size_t)(end - data));
        s->part.n += (size_t)(end - data);
        if (s->part.n > TRAK_LIMIT_TEXT_PACKET_BYTES) line_too_long(s);
      }
      s->offset += (size_t)(end - data);
      return;
    }
    size_t n = (size_t)(nl - data);
    s->offset += n + 1;
    if (s->skipping) {
      s->skipping = 0;
      s->line_no++;
    } else if (s->part.n) {
      trak__grow((void **)&s->part.v, &s->part.cap, s->part.n + n, 1);
      memcpy(s->part.v + s->part.n, data, n);
      s->part.n += n;
      s->line_no++;
      line_read(s, s->part.v, s->part.n, s->offset - s->part.n - 1);
      s->part.n = 0;
    } else {
      s->line_no++;
      line_read(s, data, n, s->offset - n - 1);
    }
    data = nl + 1;
  }
}

/* The file's first bytes: what comes before the first line is dropped (banner, cpus=N line)
** and the first section is found. Waits for TRAK_SYSTRACE_LOOKAHEAD bytes and a '\n' after
** them (or the end of the text, `final`). */
static void file_start(trak_systrace_import *s, int final) {
  const char *v = s->part.v;
  size_t n = s->part.n;
  if (!final && (n < TRAK_SYSTRACE_LOOKAHEAD ||
                 !memchr(v + TRAK_SYSTRACE_LOOKAHEAD - 1, '\n', n - TRAK_SYSTRACE_LOOKAHEAD + 1)))
    return;
  s->started = 1;
  size_t skip = n ? trak__systrace_text_start(v, n, &s->section) : 0;
  for (size_t i = 0; i < skip; i++) /* dropped lines still count for line numbers */
    s->line_no += v[i] == '\n';
  s->part.n = 0;
  s->offset = skip;
  /* The copy is read as if fed now (part is empty, so it is not appended to itself). */
  char *copy = s->part.v;
  s->part.v = NULL, s->part.cap = 0;
  lines_cut(s, copy + skip, n - skip);
  free(copy);
}

void trak__systrace_import_feed(trak_systrace_import *s, const char *data, size_t len) {
  if (!len) return;
  if (TRAK_LIKELY(s->started)) {
    lines_cut(s, data, len);
    return;
  }
  trak__grow((void **)&s->part.v, &s->part.cap, s->part.n + len, 1);
  memcpy(s->part.v + s->part.n, data, len);
  s->part.n += len;
  file_start(s, 0);
}

void trak__systrace_import_finish(trak_systrace_import *s) {
  if (!s->started) file_start(s, 1);
  if (s->part.n && !s->skipping && s->section != TRAK_SYSTRACE_DONE) {
    s->line_no++;
    line_read(s, s->part.v, s->part.n, s->offset - s->part.n);
  }
  s->part.n = 0;
}
