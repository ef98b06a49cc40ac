/*
** This file holds the viewer's data answers: the track list, slices and counters summarised to
** screen resolution, flows, search and free SQL. Everything is read with the public query API,
** so the viewer sees exactly the tables a user can query.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/cache.h"
#include "ui/ui.h"

/* Appends the current row's column `c` as a JSON value. */
static void json_cell(trak_ui_buf *b, trak_query *q, int c) {
  switch (trak_query_type(q, c)) {
  case TRAK_VALUE_INT:
    trak__ui_int(b, trak_query_int(q, c));
    break;
  case TRAK_VALUE_DOUBLE:
    trak__ui_json_double(b, trak_query_double(q, c));
    break;
  case TRAK_VALUE_STRING:
    trak__ui_json_str(b, trak_query_string(q, c));
    break;
  default:
    trak__ui_puts(b, "null");
  }
}

/* Finishes a query loop: frees `q`, turns a step error or an incomplete buffer into the result. */
static int finish_query(trak_query *q, int step, trak_ui_buf *out, trak_error *err) {
  trak_query_free(q);
  if (step < 0) return step;
  if (out->oom) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  return 0;
}

/* Appends the remaining rows of `q` as "[[...],...]", at most `limit` (0: all). Returns 0 or
** the query's error. */
static int emit_rows(trak_query *q, size_t limit, trak_ui_buf *out, int *truncated,
                     trak_error *err) {
  int cols = trak_query_column_count(q), rc;
  size_t n = 0;
  *truncated = 0;
  trak__ui_put(out, "[", 1);
  while ((rc = trak_query_next(q, err)) == 1) {
    if (limit && n == limit) {
      *truncated = 1;
      break;
    }
    trak__ui_puts(out, n++ ? ",[" : "[");
    for (int c = 0; c < cols; c++) {
      if (c) trak__ui_put(out, ",", 1);
      json_cell(out, q, c);
    }
    trak__ui_put(out, "]", 1);
  }
  trak__ui_put(out, "]", 1);
  return rc < 0 ? rc : 0;
}

int trak__ui_rows(trak_processor *p, const char *sql, size_t limit, trak_ui_buf *out,
                  int *truncated, trak_error *err) {
  trak_query *q;
  int t, rc = trak_query_open(p, sql, &q, NULL, err);
  if (rc) return rc;
  if (!q) {
    trak__ui_puts(out, "[]");
    return 0;
  }
  rc = emit_rows(q, limit, out, truncated ? truncated : &t, err);
  return finish_query(q, rc, out, err);
}

static const char tracks_sql[] =
    /* type: a counter's or annotation's own (meminfo, cpustat...: the page groups by it) */
    "SELECT t.id, t.name, "
    "CASE WHEN at.id IS NULL AND ct.id IS NULL THEN it.classification ELSE t.type END, "
    "coalesce(tt.utid, tct.utid, at.utid), "
    "coalesce(pt.upid, pct.upid, at.upid, th.upid), t.parent_id, "
    "extract_arg(t.source_arg_set_id, 'child_ordering'), "
    "extract_arg(t.source_arg_set_id, 'sibling_order_rank'), ct.unit, "
    "ct.id IS NOT NULL, at.metric "
    "FROM track t JOIN __intrinsic_track it ON it.id = t.id "
    "LEFT JOIN thread_track tt ON tt.id = t.id "
    "LEFT JOIN process_track pt ON pt.id = t.id "
    "LEFT JOIN thread_counter_track tct ON tct.id = t.id "
    "LEFT JOIN process_counter_track pct ON pct.id = t.id "
    "LEFT JOIN counter_track ct ON ct.id = t.id "
    "LEFT JOIN annotation_track at ON at.id = t.id "
    "LEFT JOIN thread th ON th.utid = coalesce(tt.utid, tct.utid, at.utid) ORDER BY t.id";

/* The tracks' rows: the columns of tracks_sql, with max_depth and first_ts inserted before
** is_counter and the event count appended, from the cache. */
static int track_rows(trak_processor *p, const trak_ui_cache *c, trak_ui_buf *out,
                      trak_error *err) {
  trak_query *q;
  int rc = trak_query_open(p, tracks_sql, &q, NULL, err);
  if (rc) return rc;
  trak__ui_put(out, "[", 1);
  for (int n = 0; (rc = trak_query_next(q, err)) == 1; n++) {
    const trak_ui_track *t = trak__ui_cache_track(c, trak_query_int(q, 0));
    trak__ui_puts(out, n ? ",[" : "[");
    for (int col = 0; col < 11; col++) {
      if (col) trak__ui_put(out, ",", 1);
      if (col == 9 && t && t->n_lines)
        trak__ui_printf(out, "%zu,%" PRId64 ",", t->n_lines - 1, t->first_ts);
      else if (col == 9 && t)
        trak__ui_printf(out, "null,%" PRId64 ",", t->first_ts);
      else if (col == 9)
        trak__ui_puts(out, "null,null,");
      json_cell(out, q, col);
    }
    trak__ui_printf(out, ",%" PRId64 "]", t ? t->count : 0);
  }
  trak__ui_put(out, "]", 1);
  return finish_query(q, rc < 0 ? rc : 0, out, err);
}

int trak__ui_tracks(trak_processor *p, const trak_ui_cache *c, trak_ui_buf *out, trak_error *err) {
  trak__ui_printf(out, "{\"start\":%" PRId64 ",\"end\":%" PRId64 ",\"processes\":", c->start,
                  c->end);
  int rc = trak__ui_rows(p,
                         "SELECT upid, pid, name, extract_arg(arg_set_id, "
                         "'process_sort_index_hint') FROM process ORDER BY upid",
                         0, out, NULL, err);
  if (!rc) trak__ui_puts(out, ",\"threads\":");
  if (!rc)
    rc = trak__ui_rows(p,
                       "SELECT utid, tid, name, upid, extract_arg(arg_set_id, "
                       "'thread_sort_index_hint'), is_main_thread FROM thread ORDER BY utid",
                       0, out, NULL, err);
  if (!rc) trak__ui_puts(out, ",\"tracks\":");
  if (!rc) rc = track_rows(p, c, out, err);
  if (!rc) rc = trak__ui_sched_tracks(p, c, out, err);
  trak__ui_put(out, "}", 1);
  return rc;
}

/* The pixel column of `ts` in `r`; NO_COLUMN for a time before the range. Computed on unsigned
** differences: any two int64 times are less than 2^64 apart. */
#define NO_COLUMN UINT64_MAX
static uint64_t column_of(int64_t ts, const trak_ui_range *r) {
  if (ts < r->start) return NO_COLUMN;
  return ((uint64_t)ts - (uint64_t)r->start) / (uint64_t)r->px;
}

/* column_of with the range's columns at hand (no division per time). */
static uint64_t column_in(int64_t ts, const trak_ui_cols *k) {
  return ts < (int64_t)k->start ? NO_COLUMN : trak__ui_col(k, ts);
}

/* Appends what a CPU or thread-state entry adds to a slice's (trak__ui_slices). */
static void put_aux(trak_ui_buf *out, trak_ui_kind kind, uint32_t aux) {
  if (kind == TRAK_UI_CPU) trak__ui_put(out, ",", 1), trak__ui_int(out, aux);
  if (kind != TRAK_UI_STATE) return;
  int64_t cpu = TRAK_UI_STATE_CPU(aux);
  int io = TRAK_UI_STATE_IO(aux);
  if (cpu < 0)
    trak__ui_puts(out, ",null");
  else
    trak__ui_put(out, ",", 1), trak__ui_int(out, cpu);
  if (io < 0)
    trak__ui_puts(out, ",null");
  else
    trak__ui_put(out, ",", 1), trak__ui_int(out, io);
}

/* Appends v[0..n) separated by commas. */
static void put_ints(trak_ui_buf *out, const int64_t *v, size_t n) {
  for (size_t k = 0; k < n; k++) {
    if (k) trak__ui_put(out, ",", 1);
    trak__ui_int(out, v[k]);
  }
}

/* Appends one entry of a screen's slices: `best` (its aux `aux`: a CPU or thread-state row's)
** stands for the `count` slices of its pixel column at `depth`. */
static void put_slice(const trak_ui_cache *c, trak_ui_kind kind, size_t depth,
                      const trak_ui_slice *best, uint32_t aux, int64_t count, trak_ui_buf *out,
                      int *first) {
  const int64_t head[] = {(int64_t)depth, best->ts, best->dur, best->id};
  trak__ui_puts(out, *first ? "[" : ",[");
  put_ints(out, head, 4);
  trak__ui_put(out, ",", 1);
  trak__ui_json_str(out, trak__ui_cache_name(c, best->name));
  trak__ui_put(out, ",", 1);
  trak__ui_int(out, count);
  put_aux(out, kind, aux);
  trak__ui_put(out, "]", 1);
  *first = 0;
}

/* True if `id` is among sorted[0..n). */
static int has_id(const int64_t *sorted, size_t n, int64_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] == id) return 1;
    if (sorted[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

/* Summarises one depth: the longest slice starting in each pixel column stands for the column
** (NO_COLUMN gathers those that began before the range). With `only` (sorted, n_only of them),
** only the slices whose aux (a CPU track's utid) is among them count. */
static void line_slices_of(const trak_ui_cache *c, const trak_ui_track *t, size_t depth,
                           const trak_ui_range *r, const int64_t *only, size_t n_only,
                           trak_ui_buf *out, int *first) {
  const trak_ui_line *l = &t->lines[depth];
  const trak_ui_cols cols = trak__ui_cols_of(r->start, r->px);
  size_t i = trak__ui_line_first_ending(c, t, l, r->start);
  uint32_t aux, best_aux = 0;
  trak_ui_slice x = i < l->n ? trak__ui_line_row(c, t, l, i, &aux) : (trak_ui_slice){0};
  while (i < l->n && x.ts <= r->end) { /* x: entry i */
    uint64_t col = column_in(x.ts, &cols);
    trak_ui_slice best;
    int64_t count = 0;
    for (; i < l->n && x.ts <= r->end && column_in(x.ts, &cols) == col;
         x = ++i < l->n ? trak__ui_line_row(c, t, l, i, &aux) : x) {
      if (trak__ui_slice_end(&x) < r->start) continue;
      if (only && !has_id(only, n_only, aux)) continue;
      if (!count++ || trak__ui_stands_before(x.ts, x.dur, best.ts, best.dur))
        best = x, best_aux = aux;
    }
    if (count) put_slice(c, t->kind, depth, &best, best_aux, count, out, first);
  }
}

static void line_slices(const trak_ui_cache *c, const trak_ui_track *t, size_t depth,
                        const trak_ui_range *r, trak_ui_buf *out, int *first) {
  line_slices_of(c, t, depth, r, NULL, 0, out, first);
}

/* Calls `fn` for each of `tracks` (the answer is {"<id>":[...],...}) after checking the range. */
static int per_track(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                     const trak_ui_range *r, trak_ui_buf *out, trak_error *err,
                     void (*fn)(const trak_ui_cache *, const trak_ui_track *, const trak_ui_range *,
                                trak_ui_buf *)) {
  if (r->end < r->start || r->px < 1)
    return trak_error_set(err, TRAK_EINVAL, "bad range: start must not be after end, px >= 1");
  trak__ui_put(out, "{", 1);
  for (size_t i = 0; i < n; i++) {
    const trak_ui_track *t = trak__ui_cache_track(c, tracks[i]);
    trak__ui_printf(out, "%s\"%" PRId64 "\":[", i ? "," : "", tracks[i]);
    if (t) fn(c, t, r, out);
    trak__ui_put(out, "]", 1);
  }
  trak__ui_put(out, "}", 1);
  return out->oom ? trak_error_set(err, TRAK_ENOMEM, "out of memory") : 0;
}

static void track_slices(const trak_ui_cache *c, const trak_ui_track *t, const trak_ui_range *r,
                         trak_ui_buf *out) {
  int first = 1;
  for (size_t d = 0; d < t->n_lines; d++)
    line_slices(c, t, d, r, out, &first);
}

/* trak__ui_slices from the columns: the slice tracks from a scan of them (scan.c), the others
** from their lines. Returns 0, -1 (out of memory) or 1 (the scan declined: the lines answer). */
static int scanned_slices(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                          const trak_ui_range *r, trak_ui_buf *out) {
  trak_ui_scan sc;
  int rc = trak__ui_scan_new(c, tracks, n, r, &sc);
  trak__ui_put(out, "{", 1);
  for (size_t k = 0; k < n && !rc; k++) {
    const trak_ui_track *t = trak__ui_cache_track(c, tracks[k]);
    trak__ui_printf(out, "%s\"%" PRId64 "\":[", k ? "," : "", tracks[k]);
    int first = 1;
    for (size_t d = 0; t && sc.offset[k] != SIZE_MAX && d < t->n_lines; d++)
      for (size_t j = 0; j < sc.cols; j++) {
        size_t e = sc.offset[k] + d * sc.cols + j;
        if (!sc.count[e]) continue;
        trak_ui_slice best = trak__ui_scan_row(c, sc.best[e]);
        put_slice(c, t->kind, d, &best, 0, sc.count[e], out, &first);
      }
    /* A loose track's rows may tie or come out of time order: the first of equals its lines
    ** meet stands, from its lines (filled for it alone). */
    if (t && t->kind == TRAK_UI_SLICES && t->loose && trak__ui_lines_need(c, &tracks[k], 1))
      rc = -1;
    else if (t && sc.offset[k] == SIZE_MAX &&
             (t->kind != TRAK_UI_SLICES || !t->n_lines || t->loose))
      track_slices(c, t, r, out);
    trak__ui_put(out, "]", 1);
  }
  trak__ui_put(out, "}", 1);
  trak__ui_scan_free(&sc);
  return rc;
}

int trak__ui_slices(const trak_ui_cache *c, const int64_t *tracks, size_t n, const trak_ui_range *r,
                    trak_ui_buf *out, trak_error *err) {
  if (r->end < r->start || r->px < 1)
    return trak_error_set(err, TRAK_EINVAL, "bad range: start must not be after end, px >= 1");
  /* From the lines when the tracks' are filled (a track the columns declined before), else
  ** from the columns, else (declined: more columns or depths than a scan keeps) from the lines
  ** filled for it. */
  if (!trak__ui_lines_filled(c, tracks, n)) {
    size_t len = out->len;
    int rc = scanned_slices(c, tracks, n, r, out);
    if (rc < 0 || (!rc && out->oom)) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
    if (!rc) return 0;
    out->len = len; /* declined: answered from the lines below */
  }
  if (trak__ui_lines_need(c, tracks, n)) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  return per_track(c, tracks, n, r, out, err, track_slices);
}

static int cmp_id(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int trak__ui_sched_slices(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t *utids,
                          size_t n_utids, const trak_ui_range *r, trak_ui_buf *out,
                          trak_error *err) {
  if (r->end < r->start || r->px < 1)
    return trak_error_set(err, TRAK_EINVAL, "bad range: start must not be after end, px >= 1");
  qsort(utids, n_utids, sizeof *utids, cmp_id);
  trak__ui_put(out, "{", 1);
  for (size_t i = 0; i < n; i++) {
    /* The CPU tracks' lines are filled at start (sched.c). */
    const trak_ui_track *t = trak__ui_cache_track(c, tracks[i]);
    trak__ui_printf(out, "%s\"%" PRId64 "\":[", i ? "," : "", tracks[i]);
    int first = 1;
    if (t && t->kind == TRAK_UI_CPU && t->n_lines)
      line_slices_of(c, t, 0, r, utids, n_utids, out, &first);
    trak__ui_put(out, "]", 1);
  }
  trak__ui_put(out, "}", 1);
  return out->oom ? trak_error_set(err, TRAK_ENOMEM, "out of memory") : 0;
}

/* One pixel column of a counter: the values seen in it. */
typedef struct column {
  uint64_t col; /* column_of, or the one past the range */
  int64_t ts;
  double min, max, last;
  int used;
} column;

static void flush_column(trak_ui_buf *out, column *c, int *first) {
  if (!c->used) return;
  trak__ui_puts(out, *first ? "[" : ",[");
  trak__ui_int(out, c->ts);
  trak__ui_put(out, ",", 1);
  trak__ui_json_double(out, c->min);
  trak__ui_put(out, ",", 1);
  trak__ui_json_double(out, c->max);
  trak__ui_put(out, ",", 1);
  trak__ui_json_double(out, c->last);
  trak__ui_put(out, "]", 1);
  *first = 0;
  c->used = 0;
}

/* Value i of counter track `t` as drawn: the value, or for a delta track (cpustat) Perfetto's
** `lead(value, 1, value) over (order by ts) - value`: the change to the next sample, 0 at the
** last. */
static double drawn_value(const trak_ui_track *t, size_t i) {
  if (!t->delta) return trak__ui_value(t, i);
  return i + 1 < t->n_values ? trak__ui_value(t, i + 1) - trak__ui_value(t, i) : 0;
}

/* The value in force at start, one entry per column inside, and the next value after end (each
** as drawn_value). */
static void track_counters(const trak_ui_cache *c, const trak_ui_track *t, const trak_ui_range *r,
                           trak_ui_buf *out) {
  size_t i = trak__ui_track_first_value_at(t, r->start);
  if (i > 0) i--; /* the value in force at start */
  column col = {0};
  int first = 1;
  for (; i < t->n_values; i++) {
    int64_t ts = trak__ui_value_ts(t, i);
    double v = drawn_value(t, i);
    uint64_t k = ts > r->end ? NO_COLUMN - 1 : column_of(ts, r); /* before, inside, after */
    if (col.used && col.col != k) flush_column(out, &col, &first);
    if (!col.used) col = (column){.col = k, .ts = ts, .min = v, .max = v, .used = 1};
    if (v < col.min) col.min = v;
    if (v > col.max) col.max = v;
    col.last = v;
    if (ts > r->end) break; /* the one after the range ends the line */
  }
  flush_column(out, &col, &first);
}

int trak__ui_counters(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                      const trak_ui_range *r, trak_ui_buf *out, trak_error *err) {
  return per_track(c, tracks, n, r, out, err, track_counters);
}

int trak__ui_flows(const trak_ui_cache *c, int64_t start, int64_t end, size_t limit,
                   trak_ui_buf *out, trak_error *err) {
  size_t n = 0;
  trak__ui_put(out, "[", 1);
  for (size_t i = 0; i < c->n_flows && n < limit; i++) {
    const int64_t *f = c->flows[i].v;
    trak_ui_slice out_slice = {.ts = f[2], .dur = f[3] > 0 ? f[3] : 0};
    int64_t a = trak__ui_slice_end(&out_slice), b = f[7];
    if ((a < b ? a : b) > end || (a > b ? a : b) < start) continue;
    trak__ui_puts(out, n++ ? ",[" : "[");
    put_ints(out, f, 10);
    trak__ui_put(out, "]", 1);
  }
  trak__ui_put(out, "]", 1);
  if (out->oom) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  return 0;
}

int trak__ui_search(trak_processor *p, const char *text, size_t limit, trak_ui_buf *out,
                    trak_error *err) {
  trak_ui_buf sql = {0};
  trak__ui_puts(&sql, "SELECT id, ts, dur, track_id, depth FROM slice WHERE name LIKE ");
  /* LIKE's wildcards in the text match themselves: escape them with '\'. */
  trak_ui_buf pattern = {0};
  trak__ui_put(&pattern, "%", 1);
  for (const char *s = text; *s; s++) {
    if (*s == '%' || *s == '_' || *s == '\\') trak__ui_put(&pattern, "\\", 1);
    trak__ui_put(&pattern, s, 1);
  }
  trak__ui_put(&pattern, "%", 1);
  trak__ui_sql_str(&sql, pattern.s);
  trak__ui_puts(&sql, " ESCAPE '\\' OR arg_set_id IN (SELECT arg_set_id FROM args WHERE "
                      "display_value LIKE ");
  trak__ui_sql_str(&sql, pattern.s);
  trak__ui_puts(&sql, " ESCAPE '\\')");
  char *end;
  long long id = strtoll(text, &end, 10);
  if (*text && !*end) /* a number: a slice id too, that slice first */
    trak__ui_printf(&sql, " OR id = %lld ORDER BY id = %lld DESC, ts, id", id, id);
  else
    trak__ui_puts(&sql, " ORDER BY ts, id");
  int rc = 0, truncated = 0;
  if (sql.oom || pattern.oom) rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  trak__ui_puts(out, "{\"rows\":");
  if (!rc) rc = trak__ui_rows(p, sql.s, limit, out, &truncated, err);
  trak__ui_printf(out, ",\"truncated\":%s}", truncated ? "true" : "false");
  trak__ui_buf_free(&sql);
  trak__ui_buf_free(&pattern);
  return rc;
}

int trak__ui_alerts(trak_processor *p, trak_ui_buf *out, trak_error *err) {
  return trak__ui_rows(p, "SELECT slice_id, alert_type, message FROM alert ORDER BY ts, id", 0, out,
                       NULL, err);
}

/* Whether `s` holds more than whitespace, semicolons and comments. */
static int more_sql(const char *s) {
  for (;;) {
    s += strspn(s, " \t\r\n\f;");
    if (s[0] == '-' && s[1] == '-')
      s += strcspn(s, "\n");
    else if (s[0] == '/' && s[1] == '*')
      s = strstr(s + 2, "*/") ? strstr(s + 2, "*/") + 2 : s + strlen(s);
    else
      return *s != 0;
  }
}

int trak__ui_query_page(trak_processor *p, const char *sql, int64_t offset, size_t limit,
                        trak_ui_buf *out, trak_error *err) {
  trak_query *q;
  const char *tail = sql;
  int rc;
  /* Every statement runs in order; the rows of the last one are the answer. */
  for (int n = 1;; n++) {
    rc = trak_query_open(p, tail, &q, &tail, err);
    if (rc || !q || !more_sql(tail)) break;
    while ((rc = trak_query_next(q, err)) == 1)
      ;
    trak_query_free(q);
    if (rc) {
      trak_error_prefix(err, "statement %d", n);
      return rc;
    }
  }
  if (rc) return rc;
  if (!q) return trak_error_set(err, TRAK_EINVAL, "no SQL statement");
  trak__ui_puts(out, "{\"columns\":[");
  int cols = trak_query_column_count(q);
  for (int c = 0; c < cols; c++) {
    if (c) trak__ui_put(out, ",", 1);
    trak__ui_json_str(out, trak_query_column_name(q, c));
  }
  trak__ui_puts(out, "],\"rows\":");
  int truncated = 0;
  rc = 0;
  for (int64_t skip = 0; skip < offset && (rc = trak_query_next(q, err)) == 1; skip++)
    continue;
  if (rc >= 0 && offset > 0 && rc == 0)
    trak__ui_puts(out, "[]"), truncated = 0; /* fewer rows than the offset */
  else if (rc >= 0)
    rc = emit_rows(q, limit, out, &truncated, err);
  trak__ui_printf(out, ",\"truncated\":%s,\"offset\":%" PRId64 "}", truncated ? "true" : "false",
                  offset);
  return finish_query(q, rc, out, err);
}
