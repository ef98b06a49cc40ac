/*
** This file holds the viewer's data answers: the track list, slices and counters summarised to
** screen resolution, flows, search and free SQL. Everything is read with the public query API,
** so the viewer sees exactly the tables a user can query.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui.h"

/* Appends the current row's column `c` as a JSON value. */
static void json_cell(trak_ui_buf *b, trak_query *q, int c) {
  switch (trak_query_type(q, c)) {
  case TRAK_VALUE_INT:
    trak__ui_printf(b, "%" PRId64, trak_query_int(q, c));
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

/* Runs `sql` (at most one row expected) and stores its integer columns in `v` (NULL as `dflt`).
** Returns 1 with a row, 0 without, or a negative error. */
static int ints_row(trak_processor *p, const char *sql, int64_t *v, int n, int64_t dflt,
                    trak_error *err) {
  trak_query *q;
  int rc = trak_query_open(p, sql, &q, NULL, err);
  if (rc) return rc;
  if (!q) return 0;
  rc = trak_query_next(q, err);
  for (int c = 0; c < n; c++)
    v[c] = rc == 1 && trak_query_type(q, c) != TRAK_VALUE_NULL ? trak_query_int(q, c) : dflt;
  trak_query_free(q);
  return rc;
}

static const char tracks_sql[] =
    "WITH s AS (SELECT track_id, max(depth) AS md, min(ts) AS ft, count(*) AS n FROM slice "
    "GROUP BY track_id), "
    "c AS (SELECT track_id, min(ts) AS ft, count(*) AS n FROM counter GROUP BY track_id) "
    "SELECT t.id, t.name, t.type, coalesce(tt.utid, tct.utid, at.utid), "
    "coalesce(pt.upid, pct.upid, at.upid, th.upid), t.parent_id, "
    "extract_arg(t.source_arg_set_id, 'child_ordering'), "
    "extract_arg(t.source_arg_set_id, 'sibling_order_rank'), ct.unit, s.md, "
    "coalesce(s.ft, c.ft), ct.id IS NOT NULL, at.metric, coalesce(s.n, c.n, 0) "
    "FROM track t LEFT JOIN thread_track tt ON tt.id = t.id "
    "LEFT JOIN process_track pt ON pt.id = t.id "
    "LEFT JOIN thread_counter_track tct ON tct.id = t.id "
    "LEFT JOIN process_counter_track pct ON pct.id = t.id "
    "LEFT JOIN counter_track ct ON ct.id = t.id "
    "LEFT JOIN annotation_track at ON at.id = t.id "
    "LEFT JOIN thread th ON th.utid = coalesce(tt.utid, tct.utid, at.utid) "
    "LEFT JOIN s ON s.track_id = t.id LEFT JOIN c ON c.track_id = t.id ORDER BY t.id";

int trak__ui_tracks(trak_processor *p, trak_ui_buf *out, trak_error *err) {
  int64_t bounds[2];
  int rc = ints_row(p,
                    "SELECT min(a), max(b) FROM (SELECT min(ts) AS a, max(ts + max(dur, 0)) AS b "
                    "FROM slice UNION ALL SELECT min(ts), max(ts) FROM counter)",
                    bounds, 2, 0, err);
  if (rc < 0) return rc;
  trak__ui_printf(out, "{\"start\":%" PRId64 ",\"end\":%" PRId64 ",\"processes\":", bounds[0],
                  bounds[1] > bounds[0] ? bounds[1] : bounds[0] + 1);
  rc = trak__ui_rows(p,
                     "SELECT upid, pid, name, extract_arg(arg_set_id, 'process_sort_index_hint') "
                     "FROM process ORDER BY upid",
                     0, out, NULL, err);
  if (!rc) trak__ui_puts(out, ",\"threads\":");
  if (!rc)
    rc = trak__ui_rows(p,
                       "SELECT utid, tid, name, upid, extract_arg(arg_set_id, "
                       "'thread_sort_index_hint'), is_main_thread FROM thread ORDER BY utid",
                       0, out, NULL, err);
  if (!rc) trak__ui_puts(out, ",\"tracks\":");
  if (!rc) rc = trak__ui_rows(p, tracks_sql, 0, out, NULL, err);
  trak__ui_put(out, "}", 1);
  return rc;
}

/* One pending summary entry of a depth: the longest slice starting in pixel column `col`. */
typedef struct summary {
  int64_t col, ts, dur, id, count;
  char *name;
} summary;

static void flush_summary(trak_ui_buf *out, summary *s, int depth, int *first) {
  if (!s->count) return;
  trak__ui_printf(out, "%s[%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",", *first ? "" : ",", depth,
                  s->ts, s->dur, s->id);
  trak__ui_json_str(out, s->name);
  trak__ui_printf(out, ",%" PRId64 "]", s->count);
  *first = 0;
  free(s->name);
  memset(s, 0, sizeof *s);
}

/* Summarises one track's slices. Rows arrive in time order, so a depth's entries are complete
** as soon as a slice starts in a later column. */
static int track_slices(trak_processor *p, int64_t track, const trak_ui_range *r,
                        trak_ui_buf *out, trak_error *err) {
  char sql[256];
  snprintf(sql, sizeof sql,
           "SELECT ts, dur, depth, id, name FROM slice WHERE track_id = %" PRId64
           " AND ts <= %" PRId64 " ORDER BY ts",
           track, r->end);
  trak_query *q;
  int rc = trak_query_open(p, sql, &q, NULL, err);
  if (rc) return rc;
  summary *depths = NULL;
  size_t n_depths = 0;
  int first = 1;
  trak__ui_put(out, "[", 1);
  while ((rc = trak_query_next(q, err)) == 1) {
    int64_t ts = trak_query_int(q, 0), dur = trak_query_int(q, 1), depth = trak_query_int(q, 2);
    if (dur >= 0 && ts + dur < r->start) continue;
    if (depth < 0 || depth > 100000) continue; /* a depth the viewer cannot lay out */
    if ((size_t)depth >= n_depths) {
      size_t n = (size_t)depth + 8;
      summary *d = realloc(depths, n * sizeof *d);
      if (!d) {
        rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
        break;
      }
      memset(d + n_depths, 0, (n - n_depths) * sizeof *d);
      depths = d, n_depths = n;
    }
    summary *s = &depths[depth];
    int64_t col = ts < r->start ? -1 : (ts - r->start) / r->px; /* -1: began before */
    if (s->count && s->col != col) flush_summary(out, s, (int)depth, &first);
    s->count++;
    if (s->count == 1 || dur > s->dur || dur < 0) {
      const char *name = trak_query_string(q, 4);
      free(s->name);
      s->name = name ? strdup(name) : NULL;
      s->col = col, s->ts = ts, s->dur = dur, s->id = trak_query_int(q, 3);
    }
  }
  for (size_t d = 0; d < n_depths; d++) flush_summary(out, &depths[d], (int)d, &first);
  free(depths);
  trak__ui_put(out, "]", 1);
  return finish_query(q, rc < 0 ? rc : 0, out, err);
}

static int check_range(const trak_ui_range *r, trak_error *err) {
  if (r->end < r->start || r->px < 1)
    return trak_error_set(err, TRAK_EINVAL, "bad range: start must not be after end, px >= 1");
  return 0;
}

int trak__ui_slices(trak_processor *p, const int64_t *tracks, size_t n, const trak_ui_range *r,
                    trak_ui_buf *out, trak_error *err) {
  int rc = check_range(r, err);
  trak__ui_put(out, "{", 1);
  for (size_t i = 0; i < n && !rc; i++) {
    trak__ui_printf(out, "%s\"%" PRId64 "\":", i ? "," : "", tracks[i]);
    rc = track_slices(p, tracks[i], r, out, err);
  }
  trak__ui_put(out, "}", 1);
  return rc;
}

/* One pixel column of a counter: the values seen in it. */
typedef struct column {
  int64_t col, ts;
  double min, max, last;
  int used;
} column;

static void flush_column(trak_ui_buf *out, column *c, int *first) {
  if (!c->used) return;
  trak__ui_printf(out, "%s[%" PRId64 ",", *first ? "" : ",", c->ts);
  trak__ui_json_double(out, c->min);
  trak__ui_put(out, ",", 1);
  trak__ui_json_double(out, c->max);
  trak__ui_put(out, ",", 1);
  trak__ui_json_double(out, c->last);
  trak__ui_put(out, "]", 1);
  *first = 0;
  c->used = 0;
}

static int track_counters(trak_processor *p, int64_t track, const trak_ui_range *r,
                          trak_ui_buf *out, trak_error *err) {
  char sql[512];
  /* The value in force at start, the values inside, and the next one (where the line ends). */
  snprintf(sql, sizeof sql,
           "SELECT * FROM (SELECT max(ts), value FROM counter WHERE track_id = %" PRId64
           " AND ts < %" PRId64 ") WHERE value IS NOT NULL "
           "UNION ALL SELECT * FROM (SELECT ts, value FROM counter WHERE track_id = %" PRId64
           " AND ts >= %" PRId64 " AND ts <= %" PRId64 " ORDER BY ts) "
           "UNION ALL SELECT * FROM (SELECT min(ts), value FROM counter WHERE track_id = %" PRId64
           " AND ts > %" PRId64 ") WHERE value IS NOT NULL",
           track, r->start, track, r->start, r->end, track, r->end);
  trak_query *q;
  int rc = trak_query_open(p, sql, &q, NULL, err);
  if (rc) return rc;
  column c = {0};
  int first = 1;
  trak__ui_put(out, "[", 1);
  while ((rc = trak_query_next(q, err)) == 1) {
    int64_t ts = trak_query_int(q, 0);
    double v = trak_query_double(q, 1);
    int64_t col = ts < r->start ? -1 : ts > r->end ? INT64_MAX : (ts - r->start) / r->px;
    if (c.used && c.col != col) flush_column(out, &c, &first);
    if (!c.used) c = (column){.col = col, .ts = ts, .min = v, .max = v, .used = 1};
    if (v < c.min) c.min = v;
    if (v > c.max) c.max = v;
    c.last = v;
  }
  flush_column(out, &c, &first);
  trak__ui_put(out, "]", 1);
  return finish_query(q, rc < 0 ? rc : 0, out, err);
}

int trak__ui_counters(trak_processor *p, const int64_t *tracks, size_t n, const trak_ui_range *r,
                      trak_ui_buf *out, trak_error *err) {
  int rc = check_range(r, err);
  trak__ui_put(out, "{", 1);
  for (size_t i = 0; i < n && !rc; i++) {
    trak__ui_printf(out, "%s\"%" PRId64 "\":", i ? "," : "", tracks[i]);
    rc = track_counters(p, tracks[i], r, out, err);
  }
  trak__ui_put(out, "}", 1);
  return rc;
}

int trak__ui_flows(trak_processor *p, int64_t start, int64_t end, size_t limit,
                   trak_ui_buf *out, trak_error *err) {
  char sql[640];
  snprintf(sql, sizeof sql,
           "SELECT o.id, o.track_id, o.ts, o.dur, o.depth, i.id, i.track_id, i.ts, i.dur, "
           "i.depth FROM flow f JOIN slice o ON o.id = f.slice_out JOIN slice i ON i.id = "
           "f.slice_in WHERE min(o.ts + max(o.dur, 0), i.ts) <= %" PRId64
           " AND max(o.ts + max(o.dur, 0), i.ts) >= %" PRId64 " ORDER BY o.ts",
           end, start);
  return trak__ui_rows(p, sql, limit, out, NULL, err);
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
  trak__ui_puts(&sql, " ESCAPE '\\' ORDER BY ts, id");
  int rc = 0, truncated = 0;
  if (sql.oom || pattern.oom) rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  trak__ui_puts(out, "{\"rows\":");
  if (!rc) rc = trak__ui_rows(p, sql.s, limit, out, &truncated, err);
  trak__ui_printf(out, ",\"truncated\":%s}", truncated ? "true" : "false");
  trak__ui_buf_free(&sql);
  trak__ui_buf_free(&pattern);
  return rc;
}

int trak__ui_query(trak_processor *p, const char *sql, size_t limit, trak_ui_buf *out,
                   trak_error *err) {
  trak_query *q;
  const char *tail;
  int rc = trak_query_open(p, sql, &q, &tail, err);
  if (rc) return rc;
  if (!q) return trak_error_set(err, TRAK_EINVAL, "no SQL statement");
  trak__ui_puts(out, "{\"columns\":[");
  int cols = trak_query_column_count(q);
  for (int c = 0; c < cols; c++) {
    if (c) trak__ui_put(out, ",", 1);
    trak__ui_json_str(out, trak_query_column_name(q, c));
  }
  trak__ui_puts(out, "],\"rows\":");
  int truncated;
  rc = emit_rows(q, limit, out, &truncated, err);
  trak__ui_printf(out, ",\"truncated\":%s}", truncated ? "true" : "false");
  return finish_query(q, rc, out, err);
}
