/*
** This file holds the SPAN_JOIN, SPAN_LEFT_JOIN and SPAN_OUTER_JOIN virtual tables:
**   CREATE VIRTUAL TABLE sp USING SPAN_JOIN(t1 [PARTITIONED col], t2 [PARTITIONED col]);
** Both tables have ts and dur columns, and within a partition their spans do not overlap. The
** result cuts time at every span boundary of either side and keeps the pieces covered by both
** sides (SPAN_JOIN), by the first (SPAN_LEFT_JOIN) or by either (SPAN_OUTER_JOIN), with ts,
** dur, the partition and the other columns of both tables (NULL for a side with no span there).
** An unpartitioned side joins every partition of the other. The join is computed when SQLite
** scans the table: both sides are read in (partition, ts) order and swept once. SPAN_JOIN also
** joins zero-length and unfinished (dur = -1) spans as Perfetto's operator does (merge_inner);
** the outer joins skip them.
*/
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "processor/sql/perfetto_sql/psql.h"

enum { JOIN_INNER, JOIN_LEFT, JOIN_OUTER };

typedef struct side {
  char *table;
  char *partition; /* NULL when unpartitioned */
  char **cols;     /* the other columns */
  int ncols;
} side;

typedef struct sj_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
  int kind;
  side s[2];
  int partitioned; /* either side is */
} sj_vtab;

/* One side's rows, read in (partition, ts) order. */
typedef struct rows {
  int64_t *part, *ts, *end;
  sqlite3_value **vals; /* n * ncols */
  size_t n;
} rows;

/* One output row: a piece of time and the row of each side covering it (-1: none). */
typedef struct piece {
  int64_t ts, dur, part;
  long a, b;
} piece;

typedef struct sj_cursor {
  sqlite3_vtab_cursor base;
  rows r[2];
  piece *out;
  size_t n, cap, i;
} sj_cursor;

static void side_free(side *s) {
  free(s->table);
  free(s->partition);
  for (int i = 0; i < s->ncols; i++)
    free(s->cols[i]);
  free(s->cols);
}

/* Parses "table [PARTITIONED col]". Returns 0 or -1. */
static int parse_side(const char *arg, side *out) {
  size_t n = strlen(arg);
  psql_tok t = trak__psql_lex(arg, n, 0);
  if (t.kind != PSQL_ID) return -1;
  out->table = strndup(arg + t.off, t.len);
  t = trak__psql_lex(arg, n, t.off + t.len);
  if (trak__psql_is(arg, t, "PARTITIONED")) {
    t = trak__psql_lex(arg, n, t.off + t.len);
    if (t.kind != PSQL_ID) return -1;
    out->partition = strndup(arg + t.off, t.len);
    t = trak__psql_lex(arg, n, t.off + t.len);
  }
  return t.kind == PSQL_EOF && out->table ? 0 : -1;
}

/* Finds the side's columns other than ts, dur and the partition; checks ts and dur exist. */
static int read_columns(sqlite3 *db, side *s, char **err) {
  char *sql = sqlite3_mprintf("SELECT * FROM \"%w\" LIMIT 0", s->table);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    *err = sqlite3_mprintf("SPAN_JOIN: %s", sqlite3_errmsg(db));
    return SQLITE_ERROR;
  }
  int n = sqlite3_column_count(st), have_ts = 0, have_dur = 0, have_part = !s->partition;
  s->cols = calloc((size_t)n + 1, sizeof *s->cols);
  for (int i = 0; s->cols && i < n; i++) {
    const char *c = sqlite3_column_name(st, i);
    if (!strcasecmp(c, "ts"))
      have_ts = 1;
    else if (!strcasecmp(c, "dur"))
      have_dur = 1;
    else if (s->partition && !strcasecmp(c, s->partition))
      have_part = 1;
    else
      s->cols[s->ncols++] = strdup(c);
  }
  sqlite3_finalize(st);
  if (!have_ts || !have_dur || !have_part) {
    *err = sqlite3_mprintf("SPAN_JOIN: table %s has no %s column", s->table,
                           !have_ts    ? "ts"
                           : !have_dur ? "dur"
                                       : s->partition);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

static int sj_connect_kind(sqlite3 *db, int kind, int argc, const char *const *argv,
                           sqlite3_vtab **out, char **err) {
  if (argc != 5) {
    *err = sqlite3_mprintf("SPAN_JOIN: expected two tables, as SPAN_JOIN(t1 [PARTITIONED c], "
                           "t2 [PARTITIONED c])");
    return SQLITE_ERROR;
  }
  sj_vtab *v = calloc(1, sizeof *v);
  if (!v) return SQLITE_NOMEM;
  v->db = db;
  v->kind = kind;
  int rc = SQLITE_OK;
  for (int i = 0; i < 2 && rc == SQLITE_OK; i++) {
    if (parse_side(argv[3 + i], &v->s[i])) {
      *err = sqlite3_mprintf("SPAN_JOIN: cannot read '%s' as 'table [PARTITIONED column]'",
                             argv[3 + i]);
      rc = SQLITE_ERROR;
    } else {
      rc = read_columns(db, &v->s[i], err);
    }
  }
  if (rc == SQLITE_OK && v->s[0].partition && v->s[1].partition &&
      strcasecmp(v->s[0].partition, v->s[1].partition)) {
    *err = sqlite3_mprintf("SPAN_JOIN: both tables must be partitioned by the same column");
    rc = SQLITE_ERROR;
  }
  for (int a = 0; rc == SQLITE_OK && a < v->s[0].ncols; a++)
    for (int b = 0; rc == SQLITE_OK && b < v->s[1].ncols; b++)
      if (!strcasecmp(v->s[0].cols[a], v->s[1].cols[b])) {
        *err = sqlite3_mprintf("SPAN_JOIN: column %s is in both tables", v->s[0].cols[a]);
        rc = SQLITE_ERROR;
      }
  if (rc == SQLITE_OK) {
    const char *part = v->s[0].partition ? v->s[0].partition : v->s[1].partition;
    v->partitioned = part != NULL;
    sqlite3_str *s = sqlite3_str_new(db);
    sqlite3_str_appendall(s, "CREATE TABLE x(ts BIGINT, dur BIGINT");
    if (part) sqlite3_str_appendf(s, ", \"%w\" BIGINT", part);
    for (int i = 0; i < 2; i++)
      for (int c = 0; c < v->s[i].ncols; c++)
        sqlite3_str_appendf(s, ", \"%w\"", v->s[i].cols[c]);
    sqlite3_str_appendall(s, ")");
    char *sql = sqlite3_str_finish(s);
    rc = sql ? sqlite3_declare_vtab(db, sql) : SQLITE_NOMEM;
    sqlite3_free(sql);
  }
  if (rc != SQLITE_OK) {
    side_free(&v->s[0]);
    side_free(&v->s[1]);
    free(v);
    return rc;
  }
  *out = &v->base;
  return SQLITE_OK;
}

static int sj_inner(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                    char **err) {
  return sj_connect_kind(db, JOIN_INNER, argc, argv, out, err);
}
static int sj_left(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                   char **err) {
  return sj_connect_kind(db, JOIN_LEFT, argc, argv, out, err);
}
static int sj_outer(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                    char **err) {
  return sj_connect_kind(db, JOIN_OUTER, argc, argv, out, err);
}

static int sj_disconnect(sqlite3_vtab *vt) {
  sj_vtab *v = (sj_vtab *)vt;
  side_free(&v->s[0]);
  side_free(&v->s[1]);
  free(v);
  return SQLITE_OK;
}

static int sj_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  info->estimatedCost = 1e6;
  return SQLITE_OK;
}

static void rows_free(rows *r, int ncols) {
  for (size_t i = 0; r->vals && i < r->n * (size_t)ncols; i++)
    sqlite3_value_free(r->vals[i]);
  free(r->part);
  free(r->ts);
  free(r->end);
  free(r->vals);
  memset(r, 0, sizeof *r);
}

static int sj_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  sj_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static void cursor_reset(sj_cursor *c, sj_vtab *v) {
  rows_free(&c->r[0], v->s[0].ncols);
  rows_free(&c->r[1], v->s[1].ncols);
  free(c->out);
  c->out = NULL;
  c->n = c->cap = c->i = 0;
}

static int sj_close(sqlite3_vtab_cursor *cur) {
  cursor_reset((sj_cursor *)cur, (sj_vtab *)cur->pVtab);
  free(cur);
  return SQLITE_OK;
}

/* Reads one side in (partition, ts) order. The outer joins skip spans with dur <= 0 (they cover
** no time: a known difference from Perfetto's, which joins them as points); SPAN_JOIN reads
** every span, as Perfetto's does. */
static int load(sj_vtab *v, const side *s, rows *r) {
  sqlite3_str *q = sqlite3_str_new(v->db);
  sqlite3_str_appendf(q, "SELECT ts, dur, %s%s%s", s->partition ? "\"" : "",
                      s->partition ? s->partition : "0", s->partition ? "\"" : "");
  for (int c = 0; c < s->ncols; c++)
    sqlite3_str_appendf(q, ", \"%w\"", s->cols[c]);
  sqlite3_str_appendf(q, " FROM \"%w\"%s ORDER BY 3, 1", s->table,
                      v->kind == JOIN_INNER ? "" : " WHERE dur > 0");
  char *sql = sqlite3_str_finish(q);
  sqlite3_stmt *st = NULL;
  int rc = sql ? sqlite3_prepare_v2(v->db, sql, -1, &st, NULL) : SQLITE_NOMEM;
  sqlite3_free(sql);
  size_t cap = 0;
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    if (r->n == cap) {
      cap = cap ? cap * 2 : 256;
      int64_t *p1 = realloc(r->part, cap * sizeof *p1), *p2 = realloc(r->ts, cap * sizeof *p2);
      r->part = p1 ? p1 : r->part;
      r->ts = p2 ? p2 : r->ts;
      int64_t *p3 = realloc(r->end, cap * sizeof *p3);
      r->end = p3 ? p3 : r->end;
      sqlite3_value **p4 = realloc(r->vals, cap * (size_t)(s->ncols ? s->ncols : 1) * sizeof *p4);
      r->vals = p4 ? p4 : r->vals;
      if (!p1 || !p2 || !p3 || !p4) rc = SQLITE_NOMEM;
      if (rc != SQLITE_OK) break;
    }
    r->ts[r->n] = sqlite3_column_int64(st, 0);
    r->end[r->n] = r->ts[r->n] + sqlite3_column_int64(st, 1);
    r->part[r->n] = sqlite3_column_int64(st, 2);
    for (int c = 0; c < s->ncols; c++)
      r->vals[r->n * (size_t)s->ncols + (size_t)c] =
          sqlite3_value_dup(sqlite3_column_value(st, 3 + c));
    r->n++;
  }
  if (rc == SQLITE_OK && st && sqlite3_errcode(v->db) != SQLITE_OK &&
      sqlite3_errcode(v->db) != SQLITE_DONE && sqlite3_errcode(v->db) != SQLITE_ROW)
    rc = SQLITE_ERROR;
  sqlite3_finalize(st);
  return rc;
}

static int emit(sj_cursor *c, int64_t ts, int64_t end, int64_t part, long a, long b) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 256;
    piece *v = realloc(c->out, cap * sizeof *v);
    if (!v) return SQLITE_NOMEM;
    c->out = v;
    c->cap = cap;
  }
  c->out[c->n++] = (piece){ts, end - ts, part, a, b};
  return SQLITE_OK;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

/* Sweeps one partition of an outer join (`kind` JOIN_LEFT or JOIN_OUTER): rows [a0, a1) of side
** 0 and [b0, b1) of side 1, time cut at every boundary. */
static int sweep(sj_cursor *c, int kind, int64_t part, size_t a0, size_t a1, size_t b0, size_t b1) {
  const rows *A = &c->r[0], *B = &c->r[1];
  size_t nb = 2 * ((a1 - a0) + (b1 - b0));
  int64_t *pts = malloc((nb ? nb : 1) * sizeof *pts);
  if (!pts) return SQLITE_NOMEM;
  size_t k = 0;
  for (size_t i = a0; i < a1; i++)
    pts[k++] = A->ts[i], pts[k++] = A->end[i];
  for (size_t i = b0; i < b1; i++)
    pts[k++] = B->ts[i], pts[k++] = B->end[i];
  qsort(pts, k, sizeof *pts, cmp_i64);
  size_t ia = a0, ib = b0;
  int rc = SQLITE_OK;
  for (size_t i = 0; i + 1 < k && rc == SQLITE_OK; i++) {
    int64_t x = pts[i], y = pts[i + 1];
    if (x == y) continue;
    while (ia < a1 && A->end[ia] <= x)
      ia++;
    while (ib < b1 && B->end[ib] <= x)
      ib++;
    long a = ia < a1 && A->ts[ia] <= x ? (long)ia : -1;
    long b = ib < b1 && B->ts[ib] <= x ? (long)ib : -1;
    int keep = kind == JOIN_LEFT ? a >= 0 : a >= 0 || b >= 0;
    if (keep) rc = emit(c, x, y, part, a, b);
  }
  free(pts);
  return rc;
}

/* The end of row i of `r` as SPAN_JOIN compares spans: ts + dur, but ts for dur = -1 (a span
** that never ended). */
static int64_t adjusted_end(const rows *r, size_t i) {
  return r->end[i] - r->ts[i] == -1 ? r->ts[i] : r->end[i];
}

/* SPAN_JOIN of one partition, as Perfetto's operator joins: rows [a0, a1) of side 0 and
** [b0, b1) of side 1 are walked pairwise, the span that ends first (by adjusted_end; side 1 on
** a tie) stepping on; a pair joins when the two start together or one starts inside the
** other's [ts, adjusted end), and gives the later start with dur up to the earlier raw end. For
** spans with dur > 0 these are sweep()'s pieces; a zero-length span inside the other side's
** span gives a piece with dur 0, a dur = -1 span one with dur -1 (or less). */
static int merge_inner(sj_cursor *c, int64_t part, size_t a0, size_t a1, size_t b0, size_t b1) {
  const rows *A = &c->r[0], *B = &c->r[1];
  int rc = SQLITE_OK;
  for (size_t i = a0, j = b0; i < a1 && j < b1 && rc == SQLITE_OK;) {
    int64_t ta = A->ts[i], tb = B->ts[j], ea = adjusted_end(A, i), eb = adjusted_end(B, j);
    if (ta == tb || (ta > tb && ta < eb) || (tb > ta && tb < ea))
      rc = emit(c, ta > tb ? ta : tb, A->end[i] < B->end[j] ? A->end[i] : B->end[j], part, (long)i,
                (long)j);
    if (ea < eb)
      i++;
    else
      j++;
  }
  return rc;
}

static int sj_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                     sqlite3_value **argv) {
  sj_cursor *c = (sj_cursor *)cur;
  sj_vtab *v = (sj_vtab *)cur->pVtab;
  cursor_reset(c, v);
  int rc = load(v, &v->s[0], &c->r[0]);
  if (rc == SQLITE_OK) rc = load(v, &v->s[1], &c->r[1]);
  if (rc != SQLITE_OK) {
    sqlite3_free(v->base.zErrMsg);
    v->base.zErrMsg = sqlite3_mprintf("SPAN_JOIN: %s", sqlite3_errmsg(v->db));
    return rc;
  }
  const rows *A = &c->r[0], *B = &c->r[1];
  int pa = v->s[0].partition != NULL, pb = v->s[1].partition != NULL;
  size_t ia = 0, ib = 0;
  while (rc == SQLITE_OK && (ia < A->n || ib < B->n)) {
    /* The next partition: the smaller of the two sides' next (an unpartitioned side has all
    ** its rows in every partition). */
    int64_t part;
    if (pa && pb)
      part = ia < A->n && (ib >= B->n || A->part[ia] <= B->part[ib]) ? A->part[ia] : B->part[ib];
    else if (pa)
      part = ia < A->n ? A->part[ia] : 0;
    else if (pb)
      part = ib < B->n ? B->part[ib] : 0;
    else
      part = 0;
    if ((pa && ia >= A->n && !pb) || (pb && ib >= B->n && !pa)) break;
    size_t a1 = ia, b1 = ib;
    if (pa)
      while (a1 < A->n && A->part[a1] == part)
        a1++;
    else
      ia = 0, a1 = A->n;
    if (pb)
      while (b1 < B->n && B->part[b1] == part)
        b1++;
    else
      ib = 0, b1 = B->n;
    rc = v->kind == JOIN_INNER ? merge_inner(c, part, ia, a1, ib, b1)
                               : sweep(c, v->kind, part, ia, a1, ib, b1);
    ia = pa ? a1 : A->n;
    ib = pb ? b1 : B->n;
    if (!pa && !pb) break;
  }
  return rc;
}

static int sj_next(sqlite3_vtab_cursor *cur) {
  ((sj_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int sj_eof(sqlite3_vtab_cursor *cur) {
  sj_cursor *c = (sj_cursor *)cur;
  return c->i >= c->n;
}

static int sj_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  sj_cursor *c = (sj_cursor *)cur;
  sj_vtab *v = (sj_vtab *)cur->pVtab;
  const piece *pc = &c->out[c->i];
  if (col == 0) return sqlite3_result_int64(ctx, pc->ts), SQLITE_OK;
  if (col == 1) return sqlite3_result_int64(ctx, pc->dur), SQLITE_OK;
  col -= 2;
  if (v->partitioned) {
    if (col == 0) return sqlite3_result_int64(ctx, pc->part), SQLITE_OK;
    col--;
  }
  int side_i = col < v->s[0].ncols ? 0 : 1;
  if (side_i) col -= v->s[0].ncols;
  long row = side_i ? pc->b : pc->a;
  if (row >= 0)
    sqlite3_result_value(ctx,
                         c->r[side_i].vals[(size_t)row * (size_t)v->s[side_i].ncols + (size_t)col]);
  return SQLITE_OK;
}

static int sj_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((sj_cursor *)cur)->i;
  return SQLITE_OK;
}

#define SPAN_MODULE(connect)                                                                       \
  {                                                                                                \
    .iVersion = 1, .xCreate = connect, .xConnect = connect, .xBestIndex = sj_best_index,           \
    .xDisconnect = sj_disconnect, .xDestroy = sj_disconnect, .xOpen = sj_open, .xClose = sj_close, \
    .xFilter = sj_filter, .xNext = sj_next, .xEof = sj_eof, .xColumn = sj_column,                  \
    .xRowid = sj_rowid                                                                             \
  }

int trak__psql_span_join_register(sqlite3 *db) {
  static const sqlite3_module inner = SPAN_MODULE(sj_inner), left = SPAN_MODULE(sj_left),
                              outer = SPAN_MODULE(sj_outer);
  int rc = sqlite3_create_module(db, "span_join", &inner, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "span_left_join", &left, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "span_outer_join", &outer, NULL);
  return rc;
}
