/*
** Annotations and alerts (docs/analysis.md): the rows of a metric's `<name>_annotations` table
** or view become tracks, slices and counters of the trace model, appended to the columnar
** tables so every query sees them next to the trace's own. Annotation tracks have type
** 'annotation_track' or 'annotation_counter_track' (and are listed by the annotation_track
** view); their slices carry args annotation.metric, annotation.source_slice_id,
** annotation.alert_type and annotation.alert_message. Rows with an alert_type also go to the
** `alert` table.
**
** Slices of one track nest: sorted by start (longer first on ties), each becomes the child of
** the innermost open slice that contains its start; depth and parent_id follow. A slice that
** would end after its parent is placed beside the ancestors it does fit in.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "processor/analysis/analysis.h"
#include "processor/tables/arg_value.h"
#include "util/wrapping.h"

enum {
  C_TRACK_TYPE,
  C_TRACK_NAME,
  C_TS,
  C_DUR,
  C_SLICE_NAME,
  C_VALUE,
  C_UPID,
  C_UTID,
  C_SOURCE,
  C_ALERT_TYPE,
  C_ALERT_MESSAGE,
  C_COUNT
};
static const char *const col_names[C_COUNT] = {
    "track_type", "track_name",      "ts",         "dur",          "slice_name", "value", "upid",
    "utid",       "source_slice_id", "alert_type", "alert_message"};

/* One annotation event, as read. Strings are string-pool ids (0: NULL). */
typedef struct ann_row {
  uint32_t track, name, alert_type, alert_message;
  int64_t ts, dur, source; /* source -1: none */
  double value;
  int is_counter;
  size_t order; /* row number, to keep the view's order on ties */
} ann_row;

typedef struct ann_track {
  int is_counter;
  uint32_t name, utid, upid, id;
} ann_track;

typedef struct import_ctx {
  trak_processor *p;
  const char *metric;
  uint32_t metric_id;
  sqlite3_stmt *st;
  int col[C_COUNT]; /* column index in the view, or -1 */
  TRAK_VEC(ann_row) rows;
  TRAK_VEC(ann_track) tracks;
  sqlite3_stmt *alert_ins;
} import_ctx;

static uint32_t intern(trak_tables *t, const char *s) {
  return s ? trak__strpool_intern(&t->strings, s, strlen(s)) : 0;
}

static int is_null(import_ctx *c, int col) {
  return c->col[col] < 0 || sqlite3_column_type(c->st, c->col[col]) == SQLITE_NULL;
}
static int64_t col_int(import_ctx *c, int col) {
  return sqlite3_column_int64(c->st, c->col[col]);
}
static uint32_t col_str(import_ctx *c, int col) {
  if (is_null(c, col)) return 0;
  return intern(&c->p->tables, (const char *)sqlite3_column_text(c->st, c->col[col]));
}

/* The annotation track for (kind, name, utid, upid), created on first use. */
static uint32_t track_for(import_ctx *c, int is_counter, uint32_t name, uint32_t utid,
                          uint32_t upid) {
  for (size_t i = 0; i < c->tracks.n; i++) {
    ann_track *k = &c->tracks.v[i];
    if (k->is_counter == is_counter && k->name == name && k->utid == utid && k->upid == upid)
      return k->id;
  }
  trak_tables *t = &c->p->tables;
  trak_track_kind kind = utid != TRAK_NULL_U32   ? TRAK_TRACK_THREAD
                         : upid != TRAK_NULL_U32 ? TRAK_TRACK_PROCESS
                                                 : TRAK_TRACK_GLOBAL;
  if (is_counter)
    kind = kind == TRAK_TRACK_THREAD    ? TRAK_TRACK_THREAD_COUNTER
           : kind == TRAK_TRACK_PROCESS ? TRAK_TRACK_PROCESS_COUNTER
                                        : TRAK_TRACK_COUNTER;
  uint32_t id = trak__track_add(t, kind);
  t->track.name[id] = name;
  t->track.type[id] = intern(t, is_counter ? "annotation_counter_track" : "annotation_track");
  t->track.utid[id] = utid;
  t->track.upid[id] = upid;
  t->track.description[id] = c->metric_id;
  trak_vec_push(c->tracks, ((ann_track){is_counter, name, utid, upid, id}));
  return id;
}

/* Returns 0 or fills err with "metric: annotations row N: why". */
static int __attribute__((format(printf, 4, 5)))
row_error(import_ctx *c, trak_error *err, size_t row, const char *fmt, ...) {
  char why[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return trak_error_set(err, TRAK_EINVAL, "%s_annotations row %zu: %s", c->metric, row + 1, why);
}

/* Reads one row of the view into c->rows. */
static int read_row(import_ctx *c, size_t i, trak_error *err) {
  trak_tables *t = &c->p->tables;
  const char *type = (const char *)sqlite3_column_text(c->st, c->col[C_TRACK_TYPE]);
  ann_row r = {0};
  r.order = i;
  if (type && !strcmp(type, "counter"))
    r.is_counter = 1;
  else if (!type || strcmp(type, "slice"))
    return row_error(c, err, i, "track_type must be 'slice' or 'counter'");
  if (is_null(c, C_TRACK_NAME) || is_null(c, C_TS))
    return row_error(c, err, i, "track_name and ts are mandatory");
  uint32_t utid = is_null(c, C_UTID) ? TRAK_NULL_U32 : (uint32_t)col_int(c, C_UTID);
  uint32_t upid = is_null(c, C_UPID) ? TRAK_NULL_U32 : (uint32_t)col_int(c, C_UPID);
  if ((utid != TRAK_NULL_U32 && utid >= t->thread.n) ||
      (upid != TRAK_NULL_U32 && upid >= t->process.n))
    return row_error(c, err, i, "no such utid or upid");
  r.ts = col_int(c, C_TS);
  r.source = is_null(c, C_SOURCE) ? -1 : col_int(c, C_SOURCE);
  if (r.is_counter) {
    if (is_null(c, C_VALUE)) return row_error(c, err, i, "a counter needs a value");
    r.value = sqlite3_column_double(c->st, c->col[C_VALUE]);
  } else {
    if (is_null(c, C_DUR) || col_int(c, C_DUR) < 0 || is_null(c, C_SLICE_NAME))
      return row_error(c, err, i, "a slice needs dur >= 0 and slice_name");
    r.dur = col_int(c, C_DUR);
    r.name = col_str(c, C_SLICE_NAME);
  }
  r.alert_type = col_str(c, C_ALERT_TYPE);
  const char *at = trak__str(&t->strings, r.alert_type);
  if (at && strcmp(at, "warning") && strcmp(at, "error"))
    return row_error(c, err, i, "alert_type must be 'warning', 'error' or NULL, not '%s'", at);
  r.alert_message = col_str(c, C_ALERT_MESSAGE);
  r.track = track_for(c, r.is_counter, col_str(c, C_TRACK_NAME), utid, upid);
  trak_vec_push(c->rows, r);
  return 0;
}

static int row_cmp(const void *a, const void *b) {
  const ann_row *x = a, *y = b;
  if (x->track != y->track) return x->track < y->track ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1; /* longer first: parents first */
  return x->order < y->order ? -1 : x->order > y->order;
}

static void add_arg(trak_tables *t, uint32_t set, const char *key, trak_arg_type type, int64_t i,
                    uint32_t s) {
  uint32_t k = intern(t, key);
  uint32_t row = trak__arg_add(t, set, k, k, type);
  if (type == TRAK_ARG_STRING)
    trak__arg_set_str(t, row, s);
  else
    trak__arg_set_int(t, row, i);
}

/* The args of one annotation slice: its metric, source and alert. */
static uint32_t add_args(import_ctx *c, const ann_row *r) {
  trak_tables *t = &c->p->tables;
  uint32_t set = (uint32_t)t->args.n;
  add_arg(t, set, "annotation.metric", TRAK_ARG_STRING, 0, c->metric_id);
  if (r->source >= 0) add_arg(t, set, "annotation.source_slice_id", TRAK_ARG_INT, r->source, 0);
  if (r->alert_type) add_arg(t, set, "annotation.alert_type", TRAK_ARG_STRING, 0, r->alert_type);
  if (r->alert_message)
    add_arg(t, set, "annotation.alert_message", TRAK_ARG_STRING, 0, r->alert_message);
  return set;
}

static int add_alert(import_ctx *c, const ann_row *r, int64_t slice_id, trak_error *err) {
  const trak_tables *t = &c->p->tables;
  sqlite3_stmt *st = c->alert_ins;
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, r->ts);
  if (r->is_counter)
    sqlite3_bind_null(st, 2);
  else
    sqlite3_bind_int64(st, 2, r->dur);
  sqlite3_bind_text(st, 3, trak__str(&t->strings, r->alert_type), -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 4, trak__str(&t->strings, r->alert_message), -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 5, c->metric, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 6, r->track);
  sqlite3_bind_text(st, 7, trak__str(&t->strings, t->track.name[r->track]), -1, SQLITE_STATIC);
  if (slice_id >= 0)
    sqlite3_bind_int64(st, 8, slice_id);
  else
    sqlite3_bind_null(st, 8);
  if (r->source >= 0)
    sqlite3_bind_int64(st, 9, r->source);
  else
    sqlite3_bind_null(st, 9);
  if (sqlite3_step(st) != SQLITE_DONE)
    return trak_error_set(err, TRAK_EINVAL, "%s: alert: %s", c->metric, sqlite3_errmsg(c->p->db));
  return 0;
}

typedef struct open_slice {
  int64_t end;
  uint32_t id, depth;
} open_slice;

/* Appends the sorted rows: slices nested per track, counters as they come. */
static int append_rows(import_ctx *c, trak_error *err) {
  trak_tables *t = &c->p->tables;
  TRAK_VEC(open_slice) stack = {0};
  uint32_t track = TRAK_NULL_U32;
  int rc = 0;
  for (size_t i = 0; i < c->rows.n && !rc; i++) {
    const ann_row *r = &c->rows.v[i];
    int64_t slice_id = -1;
    if (r->is_counter) {
      trak__counter_add(t, r->ts, r->track, r->value);
    } else {
      if (r->track != track) stack.n = 0, track = r->track;
      int64_t end = trak__sat_add(r->ts, r->dur); /* a metric's own numbers: no wrap */
      while (stack.n &&
             (stack.v[stack.n - 1].end <= r->ts || (stack.v[stack.n - 1].end < end && r->dur > 0)))
        stack.n--;
      uint32_t parent = stack.n ? stack.v[stack.n - 1].id : TRAK_NULL_U32;
      uint32_t depth = (uint32_t)stack.n;
      uint32_t id =
          trak__slice_add(t, r->ts, r->track, c->metric_id, r->name, depth, parent, add_args(c, r));
      t->slice.dur[id] = r->dur;
      if (r->dur > 0) trak_vec_push(stack, ((open_slice){end, id, depth}));
      slice_id = id;
    }
    if (r->alert_type) rc = add_alert(c, r, slice_id, err);
  }
  trak_vec_free(stack);
  return rc;
}

/* Finds the view's columns by name; the mandatory ones must be there. */
static int map_columns(import_ctx *c, trak_error *err) {
  for (int k = 0; k < C_COUNT; k++)
    c->col[k] = -1;
  for (int i = 0; i < sqlite3_column_count(c->st); i++)
    for (int k = 0; k < C_COUNT; k++)
      if (!strcmp(sqlite3_column_name(c->st, i), col_names[k])) c->col[k] = i;
  for (int k = C_TRACK_TYPE; k <= C_TS; k++)
    if (c->col[k] < 0)
      return trak_error_set(err, TRAK_EINVAL, "%s_annotations has no column %s", c->metric,
                            col_names[k]);
  return 0;
}

static int annotations_exist(trak_processor *p, const char *metric) {
  char *sql = sqlite3_mprintf("SELECT 1 FROM sqlite_schema WHERE name = '%q_annotations' AND "
                              "type IN ('table', 'view') UNION ALL SELECT 1 FROM "
                              "sqlite_temp_schema WHERE name = '%q_annotations'",
                              metric, metric);
  sqlite3_stmt *st = NULL;
  int found =
      sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return found;
}

int trak__annotations_import(trak_processor *p, const char *metric, trak_error *err) {
  if (!annotations_exist(p, metric)) return 0;
  import_ctx c = {.p = p, .metric = metric};
  c.metric_id = intern(&p->tables, metric);
  char *sql = sqlite3_mprintf("SELECT * FROM \"%w_annotations\"", metric);
  int rc = 0;
  if (sqlite3_prepare_v2(p->db, sql, -1, &c.st, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(p->db,
                         "INSERT INTO alert(ts, dur, alert_type, message, metric, track_id, "
                         "track_name, slice_id, source_slice_id) VALUES (?,?,?,?,?,?,?,?,?)",
                         -1, &c.alert_ins, NULL) != SQLITE_OK)
    rc = trak_error_set(err, TRAK_EINVAL, "%s_annotations: %s", metric, sqlite3_errmsg(p->db));
  sqlite3_free(sql);
  if (!rc) rc = map_columns(&c, err);
  int step;
  for (size_t i = 0; !rc && (step = sqlite3_step(c.st)) == SQLITE_ROW; i++)
    rc = read_row(&c, i, err);
  if (!rc && step != SQLITE_DONE)
    rc = trak_error_set(err, TRAK_EINVAL, "%s_annotations: %s", metric, sqlite3_errmsg(p->db));
  sqlite3_finalize(c.st);
  if (!rc) {
    if (c.rows.n) qsort(c.rows.v, c.rows.n, sizeof *c.rows.v, row_cmp);
    rc = append_rows(&c, err);
  }
  if (c.tracks.n) { /* rows were appended: timestamps are no longer sorted, indexes stale */
    p->tables.generation++;
    trak__csr_free(&p->children);
    p->have_children = 0;
  }
  sqlite3_finalize(c.alert_ins);
  trak_vec_free(c.rows);
  trak_vec_free(c.tracks);
  return rc;
}
