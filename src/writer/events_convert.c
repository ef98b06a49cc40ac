/*
** This file holds the tabular event converter's driver: it reads rows (events_csv.c or
** events_jsonl.c), turns each row's reserved columns (ts, dur, ph, track, name, cat, value,
** unit, flow, flow_end) into a trak_writer_event and the other columns into typed arguments, and
** writes it. A bad row is reported with its line number; with keep_going the rest converts.
** The format is documented in docs/writer.md.
*/
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "writer/events_internal.h"
#include "writer/writer_internal.h"

#define MAX_FLOWS 8

/* Column names that carry a time, with their unit in nanoseconds. */
static const struct time_column {
  const char *name;
  uint64_t ns;
} TS_COLUMNS[] = {{"ts", 1},
                  {"ts_ns", 1},
                  {"ts_us", 1000},
                  {"ts_ms", 1000000},
                  {"ts_s", 1000000000}},
  DUR_COLUMNS[] = {
      {"dur", 1}, {"dur_ns", 1}, {"dur_us", 1000}, {"dur_ms", 1000000}, {"dur_s", 1000000000}};
#define N_TIME_COLUMNS (sizeof TS_COLUMNS / sizeof *TS_COLUMNS)

static const char *const RESERVED[] = {"ph",       "phase", "track", "name", "cat",
                                       "category", "value", "unit",  "flow", "flow_end"};

/* The unit of a time column name, or 0 if it is not one. */
static uint64_t time_unit(const struct time_column *cols, const char *name) {
  for (size_t i = 0; i < N_TIME_COLUMNS; i++)
    if (!strcmp(cols[i].name, name)) return cols[i].ns;
  return 0;
}

static int is_reserved(const char *key) {
  if (time_unit(TS_COLUMNS, key) || time_unit(DUR_COLUMNS, key)) return 1;
  for (size_t i = 0; i < sizeof RESERVED / sizeof *RESERVED; i++)
    if (!strcmp(RESERVED[i], key)) return 1;
  return 0;
}

/* A cell's text for a reserved column: NULL when absent (null or empty). */
static const char *cell_text(const trak__val *v) {
  if (v->type == TRAK__V_NULL) return NULL;
  if (v->type == TRAK__V_TEXT || v->type == TRAK__V_STRING || v->type == TRAK__V_NUMBER)
    return v->len ? v->str : NULL;
  return "";
}

/* Parses a non-negative decimal time ("12", "1.5", "2e3") times `unit` ns, rounded. */
static int parse_time(const char *s, uint64_t unit, uint64_t *out) {
  const char *p = s;
  uint64_t whole = 0;
  if (!isdigit((unsigned char)*p) && *p != '.') return -1;
  if (strpbrk(s, "eE")) {
    char *end;
    errno = 0;
    double d = strtod(s, &end) * (double)unit;
    if (*end || errno || !(d >= 0) || d >= 1.8e19) return -1;
    *out = (uint64_t)llround(d);
    return 0;
  }
  for (; isdigit((unsigned char)*p); p++) {
    if (whole > (UINT64_MAX - 9) / 10) return -1;
    whole = whole * 10 + (uint64_t)(*p - '0');
  }
  if (whole > UINT64_MAX / unit) return -1;
  uint64_t ns = whole * unit, scale = unit;
  if (*p == '.') {
    /* Fraction digits: each narrows the scale tenfold; digits past 1 ns only round. */
    uint64_t frac = 0;
    int round_up = 0;
    for (p++; isdigit((unsigned char)*p); p++) {
      if (scale >= 10) {
        scale /= 10;
        frac += (uint64_t)(*p - '0') * scale;
      } else if (scale == 1) {
        round_up = *p >= '5';
        scale = 0;
      }
    }
    if (ns > UINT64_MAX - frac - (uint64_t)round_up) return -1;
    ns += frac + (uint64_t)round_up;
  }
  if (*p) return -1;
  *out = ns;
  return 0;
}

/* Parses a signed 64-bit integer; the whole text must be one. */
static int parse_i64(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || errno) return -1;
  *out = v;
  return 0;
}

static int parse_u64(const char *s, uint64_t *out) {
  char *end;
  if (*s == '-') return -1;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (end == s || *end || errno) return -1;
  *out = v;
  return 0;
}

static int parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double d = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(d)) return -1;
  *out = d;
  return 0;
}

/* The conversion of one row, built in the row arena. */
typedef struct row_event {
  trak_writer_event ev;
  const char *track;
  const char *unit;
  const char *phase;
  int has_ts, has_dur, has_value, value_is_double;
  uint64_t flows[MAX_FLOWS], term[MAX_FLOWS];
} row_event;

/* Reports a bad cell of the row: returns TRAK_EFORMAT with "column 'k': why". */
__attribute__((format(printf, 3, 4))) static int bad(trak_error *err, const char *key,
                                                     const char *fmt, ...) {
  char why[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return trak_error_set(err, TRAK_EFORMAT, "column '%s': %s", key, why);
}

/* Reads flow ids from a cell: a number, a text of numbers separated by spaces, ';' or ',', or
** a JSON array of numbers. */
static int parse_flows(const char *key, const trak__val *v, uint64_t *ids, size_t *n,
                       trak_error *err) {
  *n = 0;
  if (v->type == TRAK__V_ARRAY) {
    for (size_t i = 0; i < v->n; i++) {
      const char *t = v->items[i].type == TRAK__V_NUMBER || v->items[i].type == TRAK__V_STRING
                          ? v->items[i].str
                          : NULL;
      if (!t || *n == MAX_FLOWS || parse_u64(t, &ids[*n]))
        return bad(err, key, "expected up to %d unsigned flow ids", MAX_FLOWS);
      (*n)++;
    }
    return 0;
  }
  const char *s = cell_text(v);
  if (!s) return 0;
  char buf[32];
  while (*s) {
    size_t len = strcspn(s, " ;,\t");
    if (len) {
      if (len >= sizeof buf || *n == MAX_FLOWS)
        return bad(err, key, "expected up to %d unsigned flow ids", MAX_FLOWS);
      memcpy(buf, s, len);
      buf[len] = 0;
      if (parse_u64(buf, &ids[*n])) return bad(err, key, "'%s' is not an unsigned flow id", buf);
      (*n)++;
    }
    s += len;
    if (*s) s++;
  }
  return 0;
}

/* Builds the argument for a cell: CSV text is typed by its look, JSON by its type. */
static int make_arg(trak__arena *a, const char *name, const trak__val *v, trak_writer_arg *out) {
  *out = (trak_writer_arg){
      .name = name, .type = TRAK_WRITER_ARG_STRING, .value.s = v->str ? v->str : "null"};
  switch (v->type) {
  case TRAK__V_NULL:
    return 0;
  case TRAK__V_BOOL:
    out->type = TRAK_WRITER_ARG_BOOL;
    out->value.b = v->b;
    return 0;
  case TRAK__V_STRING:
    return 0;
  case TRAK__V_TEXT:
    if (!strcmp(v->str, "true") || !strcmp(v->str, "false")) {
      out->type = TRAK_WRITER_ARG_BOOL;
      out->value.b = v->str[0] == 't';
      return 0;
    }
    /* A number-looking cell becomes a number. */
    __attribute__((fallthrough));
  case TRAK__V_NUMBER:
    if (!parse_i64(v->str, &out->value.i))
      out->type = TRAK_WRITER_ARG_INT;
    else if (isdigit((unsigned char)v->str[0]) && !parse_u64(v->str, &out->value.u) &&
             !strchr(v->str, 'x'))
      out->type = TRAK_WRITER_ARG_UINT;
    else if (!parse_double(v->str, &out->value.d) && !strpbrk(v->str, "xXnN"))
      out->type = TRAK_WRITER_ARG_DOUBLE;
    else
      out->value.s = v->str;
    return 0;
  case TRAK__V_OBJECT:
  case TRAK__V_ARRAY: {
    trak_writer_arg *items = v->n ? trak__wr_arena_alloc(a, v->n * sizeof *items) : NULL;
    if (v->n && !items) return TRAK_ENOMEM;
    for (size_t i = 0; i < v->n; i++) {
      int rc = make_arg(a, v->type == TRAK__V_OBJECT ? v->keys[i] : NULL, &v->items[i], &items[i]);
      if (rc) return rc;
    }
    out->type = v->type == TRAK__V_OBJECT ? TRAK_WRITER_ARG_DICT : TRAK_WRITER_ARG_ARRAY;
    out->value.nested.items = items;
    out->value.nested.count = v->n;
    return 0;
  }
  }
  return 0;
}

/* Reads one reserved or argument cell into r. */
static int read_cell(trak__arena *a, row_event *r, trak_writer_arg *args, const char *key,
                     const trak__val *v, trak_error *err) {
  uint64_t unit;
  const char *s = cell_text(v);
  if (!is_reserved(key)) {
    if (v->type == TRAK__V_NULL || (v->type == TRAK__V_TEXT && !v->len)) return 0;
    return make_arg(a, key, v, &args[r->ev.n_args++]);
  }
  if (!strcmp(key, "flow")) return parse_flows(key, v, r->flows, &r->ev.n_flow_ids, err);
  if (!strcmp(key, "flow_end"))
    return parse_flows(key, v, r->term, &r->ev.n_terminating_flow_ids, err);
  if (!s) return 0;
  if (!*s) return bad(err, key, "expected text or a number");
  if ((unit = time_unit(TS_COLUMNS, key))) {
    if (r->has_ts) return bad(err, key, "the row has two timestamp columns");
    r->has_ts = 1;
    if (parse_time(s, unit, &r->ev.ts)) return bad(err, key, "'%s' is not a non-negative time", s);
  } else if ((unit = time_unit(DUR_COLUMNS, key))) {
    if (r->has_dur) return bad(err, key, "the row has two duration columns");
    r->has_dur = 1;
    if (parse_time(s, unit, &r->ev.dur))
      return bad(err, key, "'%s' is not a non-negative duration", s);
  } else if (!strcmp(key, "ph") || !strcmp(key, "phase")) {
    r->phase = s;
  } else if (!strcmp(key, "track")) {
    r->track = s;
  } else if (!strcmp(key, "name")) {
    r->ev.name = s;
  } else if (!strcmp(key, "cat") || !strcmp(key, "category")) {
    r->ev.category = s;
  } else if (!strcmp(key, "unit")) {
    r->unit = s;
  } else if (!strcmp(key, "value")) {
    r->has_value = 1;
    if (!parse_i64(s, &r->ev.int_value)) return 0;
    r->value_is_double = 1;
    if (parse_double(s, &r->ev.double_value)) return bad(err, key, "'%s' is not a number", s);
  }
  return 0;
}

/* The event type of a row: its ph column, else inferred from dur / value. */
static int row_type(row_event *r, trak_error *err) {
  const char *ph = r->phase;
  if (!ph) {
    r->ev.type = r->has_dur     ? TRAK_WRITER_COMPLETE
                 : r->has_value ? TRAK_WRITER_COUNTER_INT
                                : TRAK_WRITER_INSTANT;
  } else {
    static const struct {
      const char *letter, *word;
      trak_writer_event_type type;
    } phases[] = {{"B", "begin", TRAK_WRITER_BEGIN},
                  {"E", "end", TRAK_WRITER_END},
                  {"X", "complete", TRAK_WRITER_COMPLETE},
                  {"I", "instant", TRAK_WRITER_INSTANT},
                  {"C", "counter", TRAK_WRITER_COUNTER_INT}};
    size_t i = 0;
    while (i < 5 && strcasecmp(ph, phases[i].letter) && strcasecmp(ph, phases[i].word))
      i++;
    if (i == 5) return bad(err, "ph", "'%s' is not B, E, X, I or C", ph);
    r->ev.type = phases[i].type;
  }
  if (r->ev.type == TRAK_WRITER_COUNTER_INT && r->value_is_double)
    r->ev.type = TRAK_WRITER_COUNTER_DOUBLE;
  if (r->ev.type == TRAK_WRITER_COMPLETE && !r->has_dur)
    return bad(err, "dur", "a complete slice (X) needs a duration");
  if ((r->ev.type == TRAK_WRITER_COUNTER_INT || r->ev.type == TRAK_WRITER_COUNTER_DOUBLE) &&
      !r->has_value)
    return bad(err, "value", "a counter (C) needs a value");
  if (r->has_dur && r->ev.type != TRAK_WRITER_COMPLETE)
    return bad(err, "dur", "only complete slices (X) take a duration");
  return 0;
}

/* Converts and writes one row. Returns 0, TRAK_EFORMAT / a refusal (the row is bad), or a
** fatal writer error (TRAK_EIO, TRAK_ENOMEM). */
static int convert_row(trak_writer *w, trak__paths *paths, trak__arena *a, const trak__row *row,
                       trak_error *err) {
  row_event r = {0};
  trak_writer_arg *args = row->n ? trak__wr_arena_alloc(a, row->n * sizeof *args) : NULL;
  if (row->n && !args) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  r.ev.args = args;
  r.ev.flow_ids = r.flows;
  r.ev.terminating_flow_ids = r.term;
  for (size_t i = 0; i < row->n; i++) {
    int rc = read_cell(a, &r, args, row->keys[i], &row->vals[i], err);
    if (rc) return rc;
  }
  if (!r.has_ts)
    return trak_error_set(err, TRAK_EFORMAT, "no timestamp (ts, ts_ns, ts_us, ts_ms or ts_s)");
  if (!r.track) return trak_error_set(err, TRAK_EFORMAT, "no track");
  int rc = row_type(&r, err);
  if (rc) return rc;
  int counter = r.ev.type == TRAK_WRITER_COUNTER_INT || r.ev.type == TRAK_WRITER_COUNTER_DOUBLE;
  rc = trak__wr_paths_resolve(paths, w, r.track, counter, r.unit, &r.ev.track, err);
  if (rc) return rc;
  rc = trak_writer_write(w, &r.ev);
  if (rc) return trak_error_set(err, rc, "%s", trak_writer_last_error(w)->message);
  return 0;
}

trak_events_format trak_events_format_from_name(const char *path) {
  const char *dot = path ? strrchr(path, '.') : NULL;
  if (!dot) return TRAK_EVENTS_AUTO;
  if (!strcasecmp(dot, ".csv")) return TRAK_EVENTS_CSV;
  if (!strcasecmp(dot, ".jsonl") || !strcasecmp(dot, ".ndjson")) return TRAK_EVENTS_JSONL;
  return TRAK_EVENTS_AUTO;
}

trak_events_format trak_events_detect(const char *text, size_t len) {
  const char *p = text, *end = text + len;
  if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) p += 3;
  for (;;) {
    while (p < end && isspace((unsigned char)*p))
      p++;
    if (p < end && *p == '#') {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      p = nl ? nl + 1 : end;
      continue;
    }
    break;
  }
  if (p >= end) return TRAK_EVENTS_AUTO;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  const char *line_end = nl ? nl : end;
  if (*p == '{') {
    /* A JSON Lines row names its track; a JSON trace ({"traceEvents": ...}) does not. */
    static const char key[] = "\"track\"";
    for (const char *q = p; q + sizeof key - 1 <= line_end; q++)
      if (!memcmp(q, key, sizeof key - 1)) return TRAK_EVENTS_JSONL;
    return TRAK_EVENTS_AUTO;
  }
  /* CSV: the first line is a header naming a timestamp column. */
  while (p < line_end) {
    const char *c = p;
    while (c < line_end && *c != ',')
      c++;
    const char *s = p, *e = c;
    while (s < e && (isspace((unsigned char)*s) || *s == '"'))
      s++;
    while (e > s && (isspace((unsigned char)e[-1]) || e[-1] == '"'))
      e--;
    for (size_t i = 0; i < N_TIME_COLUMNS; i++)
      if ((size_t)(e - s) == strlen(TS_COLUMNS[i].name) &&
          !memcmp(s, TS_COLUMNS[i].name, (size_t)(e - s)))
        return TRAK_EVENTS_CSV;
    p = c + 1;
  }
  return TRAK_EVENTS_AUTO;
}

/* Reports a bad row through diag (keep_going) or `err`. */
static void report(const trak_events_options *o, const char *source, uint64_t line,
                   const trak_error *row_err, trak_error *err) {
  char msg[TRAK_ERROR_MESSAGE_MAX + 64];
  const char *why = row_err->message;
  /* Reader messages already start with "line N"; others get it here. */
  if (!strncmp(why, "line ", 5))
    snprintf(msg, sizeof msg, "%s%s%s", source, *source ? ": " : "", why);
  else
    snprintf(msg, sizeof msg, "%s%sline %llu: %s", source, *source ? ": " : "",
             (unsigned long long)line, why);
  if (o->keep_going) {
    if (o->diag) o->diag(o->diag_user, msg);
  } else {
    trak_error_set(err, row_err->code, "%s", msg);
  }
}

int trak_events_convert(trak_writer *w, const char *text, size_t len,
                        const trak_events_options *opts, trak_events_result *result,
                        trak_error *err) {
  static const trak_events_options defaults;
  const trak_events_options *o = opts ? opts : &defaults;
  const char *source = o->source_name ? o->source_name : "";
  trak_events_result res = {0};
  if (result) *result = res;
  trak_events_format format = o->format ? o->format : trak_events_detect(text, len);
  if (format == TRAK_EVENTS_AUTO)
    return trak_error_set(err, TRAK_EFORMAT, "%s%sneither CSV with a ts column nor JSON Lines",
                          source, *source ? ": " : "");
  trak__reader reader;
  trak_error row_err = {0};
  if (format == TRAK_EVENTS_CSV) {
    int rc = trak__wr_csv_reader_init(&reader, text, len, &row_err);
    int has_ts = 0;
    for (size_t i = 0; !rc && i < reader.n_header; i++)
      has_ts |= time_unit(TS_COLUMNS, reader.header[i]) != 0;
    if (!rc && !has_ts)
      rc = trak_error_set(
          &row_err, TRAK_EFORMAT,
          "line 1: the header names no timestamp column (ts, ts_ns, ts_us, ts_ms or ts_s)");
    if (rc) {
      trak__wr_reader_free(&reader);
      trak_events_options fatal = *o;
      fatal.keep_going = 0;
      report(&fatal, source, 1, &row_err, err);
      return rc;
    }
  } else {
    trak__wr_jsonl_reader_init(&reader, text, len);
  }
  trak__paths *paths = trak__wr_paths_new();
  trak__arena arena = {0};
  int rc = paths ? 0 : trak_error_set(err, TRAK_ENOMEM, "out of memory");
  while (!rc) {
    trak__wr_arena_reset(&arena);
    trak__row row = {0};
    int got = reader.next(&reader, &arena, &row, &row_err);
    if (got == 0) break;
    res.rows++;
    int row_rc = got < 0 ? got : convert_row(w, paths, &arena, &row, &row_err);
    if (!row_rc) {
      res.converted++;
      continue;
    }
    if (row_rc == TRAK_ENOMEM || row_rc == TRAK_EIO) {
      trak_error_set(err, row_rc, "%s", row_err.message);
      rc = row_rc;
      break;
    }
    res.bad_rows++;
    report(o, source, row.line, &row_err, err);
    if (!o->keep_going) rc = row_rc;
  }
  trak__wr_arena_free(&arena);
  trak__wr_paths_free(paths);
  trak__wr_reader_free(&reader);
  if (result) *result = res;
  return rc;
}
