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
  /* Reader messages already start with "line N"; others get it here (line 0: not about one). */
  if (!strncmp(why, "line ", 5) || !line)
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

#define DETECT_BYTES (64u << 10) /* a stream's format is decided from this much text */

/* Reads the next row, widening the window whenever the reader asks. Returns as the reader's
** next(); a failing source (I/O, memory, a row past the size limit) sets *fatal. */
static int next_row(trak__source *s, trak__reader *r, trak__arena *a, trak__row *row,
                    trak_error *err, int *fatal) {
  for (;;) {
    trak__wr_arena_reset(a); /* a retry starts the row over */
    *row = (trak__row){0};
    int got = r->next(r, a, row, err);
    if (got != TRAK__NEED_MORE) return got;
    int rc = trak__wr_source_more(s, r, err);
    if (rc) {
      *fatal = 1;
      return rc;
    }
  }
}

/* Decides the format (when AUTO) and reads the CSV header. Returns 0, or an error in `row_err`
** that stops the conversion whatever keep_going says. */
static int start(trak__source *s, trak__reader *r, trak_events_format *format,
                 trak_error *row_err) {
  int rc = 0;
  while (!*format) {
    *format = trak_events_detect(r->p, (size_t)(r->end - r->p));
    if (*format || r->eof || (size_t)(r->end - r->p) >= DETECT_BYTES) break;
    if ((rc = trak__wr_source_more(s, r, row_err))) return rc;
  }
  if (*format == TRAK_EVENTS_AUTO)
    return trak_error_set(row_err, TRAK_EFORMAT, "neither CSV with a ts column nor JSON Lines");
  if (*format == TRAK_EVENTS_JSONL) {
    trak__wr_jsonl_reader_init(r);
    return 0;
  }
  trak__wr_csv_reader_init(r);
  while ((rc = trak__wr_csv_read_header(r, row_err)) == TRAK__NEED_MORE)
    if ((rc = trak__wr_source_more(s, r, row_err))) return rc;
  if (rc) return rc;
  for (size_t i = 0; i < r->n_header; i++)
    if (time_unit(TS_COLUMNS, r->header[i])) return 0;
  return trak_error_set(
      row_err, TRAK_EFORMAT,
      "line 1: the header names no timestamp column (ts, ts_ns, ts_us, ts_ms or ts_s)");
}

/* The conversion of text from `s` (in memory when s->read is NULL), whose window r holds. */
static int convert(trak_writer *w, trak__source *s, trak__reader *r,
                   const trak_events_options *opts, trak_events_result *result, trak_error *err) {
  static const trak_events_options defaults;
  const trak_events_options *o = opts ? opts : &defaults;
  const char *source = o->source_name ? o->source_name : "";
  trak_events_result res = {0};
  trak_events_format format = o->format;
  trak_error row_err = {0};
  int rc = start(s, r, &format, &row_err);
  if (rc) {
    /* A header or input that cannot be read stops the conversion, keep_going or not. */
    trak_events_options fatal = *o;
    fatal.keep_going = 0;
    report(&fatal, source, format ? r->line : 0, &row_err, err);
  }
  trak__paths *paths = rc ? NULL : trak__wr_paths_new();
  trak__arena arena = {0};
  if (!rc && !paths) rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  while (!rc) {
    trak__row row;
    int fatal = 0;
    int got = next_row(s, r, &arena, &row, &row_err, &fatal);
    if (got == 0) break;
    int row_rc = got < 0 ? got : convert_row(w, paths, &arena, &row, &row_err);
    if (!fatal) res.rows++;
    if (!row_rc) {
      res.converted++;
      continue;
    }
    if (fatal || row_rc == TRAK_ENOMEM || row_rc == TRAK_EIO) {
      trak_events_options stop = *o;
      stop.keep_going = 0;
      report(&stop, source, fatal ? r->line : row.line, &row_err, err);
      rc = row_rc;
      break;
    }
    res.bad_rows++;
    report(o, source, row.line, &row_err, err);
    if (!o->keep_going) rc = row_rc;
  }
  trak__wr_arena_free(&arena);
  trak__wr_paths_free(paths);
  trak__wr_reader_free(r);
  if (result) *result = res;
  return rc;
}

int trak_events_convert(trak_writer *w, const char *text, size_t len,
                        const trak_events_options *opts, trak_events_result *result,
                        trak_error *err) {
  trak__source s = {0};
  if (!text) text = "", len = 0; /* no arithmetic on NULL */
  trak__reader r = {.p = text, .end = text + len, .eof = 1, .line = 1};
  return convert(w, &s, &r, opts, result, err);
}

int trak_events_convert_stream(trak_writer *w, trak_events_read_fn read, void *user,
                               const trak_events_options *opts, trak_events_result *result,
                               trak_error *err) {
  if (result) *result = (trak_events_result){0};
  if (!read) return trak_error_set(err, TRAK_EINVAL, "trak_events_convert_stream: NULL read");
  trak__source s = {.read = read, .user = user};
  static const char empty[] = "";
  trak__reader r = {.p = empty, .end = empty, .line = 1}; /* empty until the first read */
  int rc = convert(w, &s, &r, opts, result, err);
  trak__wr_source_free(&s);
  return rc;
}
