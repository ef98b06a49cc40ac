/*
** This file holds the SPAN_JOIN, SPAN_LEFT_JOIN and SPAN_OUTER_JOIN virtual tables:
**   CREATE VIRTUAL TABLE sp USING SPAN_JOIN(t1 [PARTITIONED col], t2 [PARTITIONED col]);
** Both tables have ts and dur columns, and within a partition their spans do not overlap. The
** result cuts time at every span boundary of either side and keeps the pieces covered by both
** sides (SPAN_JOIN), by the first (SPAN_LEFT_JOIN) or by either (SPAN_OUTER_JOIN), with ts,
** dur, the partition and the other columns of both tables (NULL for a side with no span there).
** An unpartitioned side joins every partition of the other. The join is computed when SQLite
** scans the table: both sides are read in (partition, ts) order and stepped pairwise under the
** rules of Perfetto's operator, zero-length and unfinished (dur = -1) spans included (join_all).
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
  trak_processor *p;
  int kind;
  side s[2];
  int partitioned; /* either side is */
} sj_vtab;

/* One value of a side's other columns: an integer is kept as it is, anything else as a copy of
** SQLite's value (NULL: no value, SQL NULL). */
typedef struct cell {
  int is_int;
  union {
    int64_t i;
    sqlite3_value *v;
  } u;
} cell;

/* One side's rows, read in (partition, ts) order. */
typedef struct rows {
  int64_t *part, *ts, *end;
  cell *vals; /* n * ncols */
  size_t n, cap;
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

static int sj_connect_kind(sqlite3 *db, void *aux, int kind, int argc, const char *const *argv,
                           sqlite3_vtab **out, char **err) {
  if (argc != 5) {
    *err = sqlite3_mprintf("SPAN_JOIN: expected two tables, as SPAN_JOIN(t1 [PARTITIONED c], "
                           "t2 [PARTITIONED c])");
    return SQLITE_ERROR;
  }
  sj_vtab *v = calloc(1, sizeof *v);
  if (!v) return SQLITE_NOMEM;
  v->db = db;
  v->p = aux;
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
  return sj_connect_kind(db, aux, JOIN_INNER, argc, argv, out, err);
}
static int sj_left(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                   char **err) {
  return sj_connect_kind(db, aux, JOIN_LEFT, argc, argv, out, err);
}
static int sj_outer(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                    char **err) {
  return sj_connect_kind(db, aux, JOIN_OUTER, argc, argv, out, err);
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
    if (!r->vals[i].is_int) sqlite3_value_free(r->vals[i].u.v);
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

/* Makes room for `want` rows. Returns SQLITE_OK or SQLITE_NOMEM (the rows unchanged). */
static int rows_reserve_n(rows *r, int ncols, size_t want) {
  if (want <= r->cap) return SQLITE_OK;
  size_t cap = want;
  int64_t *p1 = realloc(r->part, cap * sizeof *p1);
  if (p1) r->part = p1;
  int64_t *p2 = p1 ? realloc(r->ts, cap * sizeof *p2) : NULL;
  if (p2) r->ts = p2;
  int64_t *p3 = p2 ? realloc(r->end, cap * sizeof *p3) : NULL;
  if (p3) r->end = p3;
  cell *p4 = p3 ? realloc(r->vals, cap * (size_t)(ncols ? ncols : 1) * sizeof *p4) : NULL;
  if (p4) r->vals = p4;
  if (!p4) return SQLITE_NOMEM;
  r->cap = cap;
  return SQLITE_OK;
}

/* Makes room for one more row, doubling. Returns SQLITE_OK or SQLITE_NOMEM (the rows
** unchanged). */
static int rows_reserve(rows *r, int ncols) {
  return r->n < r->cap ? SQLITE_OK : rows_reserve_n(r, ncols, r->cap ? r->cap * 2 : 256);
}

/* Appends the statement's current row (ts, dur, partition, then the side's other columns).
** Returns SQLITE_OK or SQLITE_NOMEM. */
static int rows_append(rows *r, sqlite3_stmt *st, int ncols) {
  if (rows_reserve(r, ncols) != SQLITE_OK) return SQLITE_NOMEM;
  r->ts[r->n] = sqlite3_column_int64(st, 0);
  r->end[r->n] = (int64_t)((uint64_t)r->ts[r->n] + (uint64_t)sqlite3_column_int64(st, 1));
  r->part[r->n] = sqlite3_column_int64(st, 2);
  cell *row = r->vals + r->n * (size_t)ncols;
  for (int c = 0; c < ncols; c++) {
    sqlite3_value *v = sqlite3_column_value(st, 3 + c);
    if (sqlite3_value_type(v) == SQLITE_INTEGER) {
      row[c] = (cell){.is_int = 1, .u.i = sqlite3_value_int64(v)};
    } else {
      row[c] = (cell){.u.v = NULL};
      if (sqlite3_value_type(v) != SQLITE_NULL && !(row[c].u.v = sqlite3_value_dup(v))) {
        for (int k = 0; k < c; k++)
          if (!row[k].is_int) sqlite3_value_free(row[k].u.v);
        return SQLITE_NOMEM;
      }
    }
  }
  r->n++;
  return SQLITE_OK;
}

/* Runs one side's SELECT (`order`: with SQLite's ORDER BY partition, ts) and appends its rows.
** Without the ORDER BY, *keyed is set to 0 when a row's ts or partition is not an integer (the
** C sort below would not order it as SQLite does) and the reading stops there. */
static int load_sql(sj_vtab *v, const side *s, rows *r, int order, int *keyed) {
  sqlite3_str *q = sqlite3_str_new(v->db);
  sqlite3_str_appendf(q, "SELECT ts, dur, %s%s%s", s->partition ? "\"" : "",
                      s->partition ? s->partition : "0", s->partition ? "\"" : "");
  for (int c = 0; c < s->ncols; c++)
    sqlite3_str_appendf(q, ", \"%w\"", s->cols[c]);
  sqlite3_str_appendf(q, " FROM \"%w\"", s->table);
  if (s->partition) sqlite3_str_appendf(q, " WHERE \"%w\" IS NOT NULL", s->partition);
  if (order) sqlite3_str_appendall(q, " ORDER BY 3, 1");
  char *sql = sqlite3_str_finish(q);
  sqlite3_stmt *st = NULL;
  int rc = sql ? sqlite3_prepare_v2(v->db, sql, -1, &st, NULL) : SQLITE_NOMEM;
  sqlite3_free(sql);
  int step = SQLITE_DONE;
  while (rc == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
    if (!order && (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
                   sqlite3_column_type(st, 2) != SQLITE_INTEGER)) {
      *keyed = 0;
      break;
    }
    rc = rows_append(r, st, s->ncols);
  }
  if (rc == SQLITE_OK && step != SQLITE_ROW && step != SQLITE_DONE) rc = step;
  sqlite3_finalize(st);
  return rc;
}

/* A row's sort key: (partition, ts), and where the row is. */
typedef struct row_key {
  int64_t part, ts;
  size_t i;
} row_key;

static int key_cmp(const void *pa, const void *pb) {
  const row_key *a = pa, *b = pb;
  if (a->part != b->part) return a->part < b->part ? -1 : 1;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return 0;
}

/* Puts the rows in (partition, ts) order, when no two share a key (SQLite's sorter orders ties
** its own way). Returns 1 when sorted, 0 when two rows tie (the rows unchanged), -1 out of
** memory (likewise). */
static int rows_sort(rows *r, int ncols) {
  size_t i = 1;
  while (i < r->n &&
         (r->part[i - 1] < r->part[i] || (r->part[i - 1] == r->part[i] && r->ts[i - 1] < r->ts[i])))
    i++;
  if (i >= r->n) return 1; /* already in order, as a table read in ts order is */
  row_key *k = malloc(r->n * sizeof *k);
  rows o = {.part = malloc(r->n * sizeof *o.part),
            .ts = malloc(r->n * sizeof *o.ts),
            .end = malloc(r->n * sizeof *o.end),
            .vals = malloc(r->n * (size_t)(ncols ? ncols : 1) * sizeof *o.vals)};
  int ok = k && o.part && o.ts && o.end && o.vals ? 1 : -1;
  if (ok == 1) {
    for (i = 0; i < r->n; i++)
      k[i] = (row_key){r->part[i], r->ts[i], i};
    qsort(k, r->n, sizeof *k, key_cmp);
    for (i = 1; i < r->n && ok == 1; i++)
      if (!key_cmp(&k[i - 1], &k[i])) ok = 0;
  }
  if (ok == 1) {
    for (i = 0; i < r->n; i++) {
      o.part[i] = k[i].part;
      o.ts[i] = k[i].ts;
      o.end[i] = r->end[k[i].i];
      memcpy(o.vals + i * (size_t)ncols, r->vals + k[i].i * (size_t)ncols,
             (size_t)ncols * sizeof *o.vals);
    }
    o.n = o.cap = r->n;
    free(r->part), free(r->ts), free(r->end), free(r->vals);
    *r = o;
  } else {
    free(o.part), free(o.ts), free(o.end), free(o.vals);
  }
  free(k);
  return ok;
}

/* Reads one side in (partition, ts) order, every span (zero-length and dur = -1 ones too), and
** skips rows whose partition is NULL, as Perfetto's operator does. The rows are read as the
** table gives them and sorted here (a table read in ts order is not sorted at all); when a ts
** or partition is not an integer, or two rows share a (partition, ts), they are read again
** with SQLite's ORDER BY, so that the order is the one SQLite gives. */
/* Reads one side stored columnar (ptable.c) as load_sql without ORDER BY reads it. Returns 1
** when read, 0 when the side is not such a table or its ts or partition holds a NULL (load_sql
** then reads it), -1 out of memory. */
static int load_stored(sj_vtab *v, const side *s, rows *r) {
  const psql_ptable *t = trak__psql_ptable_named(v->p, s->table);
  if (!t) return 0;
  int ts = trak__psql_ptable_column(t, "ts"), dur = trak__psql_ptable_column(t, "dur");
  int part = s->partition ? trak__psql_ptable_column(t, s->partition) : -1;
  if (ts < 0 || dur < 0 || (s->partition && part < 0)) return 0;
  const uint8_t *tn, *dn, *pn = NULL;
  const int64_t *tv = trak__psql_ptable_values(t, ts, &tn);
  const int64_t *dv = trak__psql_ptable_values(t, dur, &dn);
  const int64_t *pv = part >= 0 ? trak__psql_ptable_values(t, part, &pn) : NULL;
  if (tn || pn) return 0;
  (void)dn; /* a NULL dur reads as 0, as sqlite3_column_int64 gives it (its value here) */
  const int64_t **cv = calloc((size_t)s->ncols + 1, sizeof *cv);
  const uint8_t **cn = calloc((size_t)s->ncols + 1, sizeof *cn);
  int ok = cv && cn ? 1 : -1;
  for (int c = 0; ok == 1 && c < s->ncols; c++) {
    int k = trak__psql_ptable_column(t, s->cols[c]);
    if (k < 0)
      ok = 0;
    else
      cv[c] = trak__psql_ptable_values(t, k, &cn[c]);
  }
  size_t n = trak__psql_ptable_rows(t);
  if (ok == 1 && rows_reserve_n(r, s->ncols, n ? n : 1) != SQLITE_OK) ok = -1;
  if (ok == 1 && n) { /* column by column: each array read and written in order */
    memcpy(r->ts, tv, n * sizeof *tv);
    for (size_t i = 0; i < n; i++)
      r->end[i] = (int64_t)((uint64_t)tv[i] + (uint64_t)dv[i]);
    if (pv)
      memcpy(r->part, pv, n * sizeof *pv);
    else
      memset(r->part, 0, n * sizeof *r->part);
    for (int c = 0; c < s->ncols; c++) {
      cell *at = r->vals + c;
      for (size_t i = 0; i < n; i++, at += s->ncols)
        *at = cn[c] && cn[c][i] ? (cell){.u.v = NULL} : (cell){.is_int = 1, .u.i = cv[c][i]};
    }
    r->n = n;
  }
  free(cv), free(cn);
  return ok;
}

static int load(sj_vtab *v, const side *s, rows *r) {
  int keyed = 1;
  int stored = load_stored(v, s, r);
  if (stored < 0) return SQLITE_NOMEM;
  if (!stored) rows_free(r, s->ncols); /* (a partial read: none, but an empty start) */
  int rc = stored ? SQLITE_OK : load_sql(v, s, r, 0, &keyed);
  int sorted = rc == SQLITE_OK && keyed ? rows_sort(r, s->ncols) : 0;
  if (sorted < 0) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK && !sorted) {
    rows_free(r, s->ncols);
    rc = load_sql(v, s, r, 1, &keyed);
  }
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

/* One side as Perfetto's operator walks it: its real spans and, between them, shadows (the
** gaps of a partition present on the side, and runs of partitions missing from it), in
** (partition, ts) order. States and rules follow Perfetto's span join query: a shadow of a
** present partition runs from the end of a span (its start for dur = -1) to the next span's
** start, from 0 to the first span of a partition, and to INT64_MAX after the last; a missing
** partition shadow covers time 0 to INT64_MAX of partitions [mstart, mend). */
enum { ST_REAL, ST_PRESENT, ST_MISSING, ST_EOF };
enum { SHADOW_NONE, SHADOW_PRESENT, SHADOW_ALL }; /* which shadows the side joins on */

typedef struct stream {
  const rows *r;
  int partitioned, shadows;
  size_t cur; /* the row the side's reader is on; r->n at its end */
  int state;
  int64_t ts, end, part; /* the current span or shadow: [ts, end) in partition part */
  int64_t mstart, mend;  /* a missing partition shadow's partitions */
} stream;

static int64_t stream_adjusted_end(const stream *s) {
  return (uint64_t)s->end - (uint64_t)s->ts == UINT64_MAX ? s->ts : s->end;
}

/* Steps to the next span or shadow, valid to join on or not. */
static void stream_step(stream *s) {
  const rows *r = s->r;
  switch (s->state) {
  case ST_REAL: {
    s->cur++;
    int at_end = s->cur >= r->n || (s->partitioned && s->part != r->part[s->cur]);
    s->state = ST_PRESENT;
    s->ts = stream_adjusted_end(s);
    s->end = at_end ? INT64_MAX : r->ts[s->cur];
    break;
  }
  case ST_PRESENT:
    if (s->end == INT64_MAX) {
      s->state = ST_MISSING;
      s->ts = 0;
      s->mstart = (int64_t)((uint64_t)s->part + 1);
      s->mend = s->cur >= r->n ? INT64_MAX : r->part[s->cur];
    } else {
      s->state = ST_REAL;
      s->ts = r->ts[s->cur];
      s->end = r->end[s->cur];
    }
    break;
  case ST_MISSING:
    if (s->mend == INT64_MAX) {
      s->state = ST_EOF;
    } else {
      s->state = ST_PRESENT;
      s->ts = 0;
      s->end = r->ts[s->cur];
      s->part = s->mend;
    }
    break;
  }
}

/* Steps on to the next span or shadow the side joins on (or its end). */
static void stream_find_valid(stream *s) {
  for (;;) {
    if (s->state == ST_EOF) return;
    int shadow = s->state != ST_REAL, missing = s->state == ST_MISSING;
    int valid = !(s->state == ST_PRESENT && s->shadows == SHADOW_NONE) &&
                !(missing && s->shadows != SHADOW_ALL) && !(shadow && s->ts == s->end) &&
                !(missing && s->mstart == s->mend);
    if (valid) return;
    stream_step(s);
  }
}

static void stream_next(stream *s) {
  stream_step(s);
  stream_find_valid(s);
}

/* Back to the side's first row: a missing partition shadow up to its first partition. */
static void stream_rewind(stream *s) {
  const rows *r = s->r;
  s->cur = 0;
  s->state = ST_MISSING;
  s->ts = 0;
  s->end = INT64_MAX;
  s->mstart = INT64_MIN;
  s->mend = !r->n ? INT64_MAX : s->partitioned ? r->part[0] : INT64_MIN;
  stream_find_valid(s);
}

/* Starts a side. `missing_at_eof`: an empty side (nothing to join on) is one shadow instead. */
static void stream_init(stream *s, const rows *r, int partitioned, int shadows,
                        int missing_at_eof) {
  *s = (stream){.r = r, .partitioned = partitioned, .shadows = shadows, .part = INT64_MIN};
  stream_rewind(s);
  if (missing_at_eof && s->state == ST_EOF) s->state = ST_MISSING;
}

static int64_t stream_first_part(const stream *s) {
  return s->state == ST_MISSING ? s->mstart : s->part;
}
static int64_t stream_last_part(const stream *s) {
  return s->state == ST_MISSING ? (int64_t)((uint64_t)s->mend - 1) : s->part;
}

enum { PART_NONE, PART_SAME, PART_MIXED };

/* The join of two sides, as Perfetto's cursor steps them. */
typedef struct join {
  stream t[2];
  int parting;
  int64_t mixed_part; /* PART_MIXED: the partitioned side's partition being joined */
} join;

/* The side to step on: the smaller (partition, adjusted end, real). */
static stream *join_earliest(join *j) {
  stream *t1 = &j->t[0], *t2 = &j->t[1];
  int64_t p1 = 0, p2 = 0;
  if (j->parting == PART_MIXED) {
    if (t1->state == ST_EOF) return t2;
    if (t2->state == ST_EOF) return t1;
    p1 = p2 = j->mixed_part;
  } else if (j->parting == PART_SAME) {
    p1 = stream_last_part(t1);
    p2 = stream_last_part(t2);
  }
  int64_t e1 = stream_adjusted_end(t1), e2 = stream_adjusted_end(t2);
  int r1 = t1->state == ST_REAL, r2 = t2->state == ST_REAL;
  int less = p1 != p2 ? p1 < p2 : e1 != e2 ? e1 < e2 : r1 < r2;
  return less ? t1 : t2;
}

/* Whether the two sides' current spans or shadows join: one real, partitions overlapping,
** equal starts (both real) or one's start in the other's [ts, adjusted end). */
static int join_overlaps(const join *j) {
  const stream *t1 = &j->t[0], *t2 = &j->t[1];
  if (t1->state == ST_EOF || t2->state == ST_EOF) return 0;
  int r1 = t1->state == ST_REAL, r2 = t2->state == ST_REAL;
  if (!r1 && !r2) return 0;
  if (j->parting == PART_SAME) {
    int64_t f1 = stream_first_part(t1), f2 = stream_first_part(t2);
    if (!((f1 >= f2 && f1 <= stream_last_part(t2)) || (f2 >= f1 && f2 <= stream_last_part(t1))))
      return 0;
  }
  return (t1->ts == t2->ts && r1 && r2) || (t1->ts >= t2->ts && t1->ts < stream_adjusted_end(t2)) ||
         (t2->ts >= t1->ts && t2->ts < stream_adjusted_end(t1));
}

/* Steps the sides until they join or one ends; returns the side to step after emitting. */
static stream *join_find(join *j) {
  stream *next = NULL;
  for (;;) {
    if (j->parting == PART_MIXED) {
      stream *pt = j->t[0].partitioned ? &j->t[0] : &j->t[1];
      stream *un = pt == &j->t[0] ? &j->t[1] : &j->t[0];
      if (pt->state == ST_EOF) break;
      if (j->mixed_part != pt->part) {
        stream_rewind(un);
        j->mixed_part = pt->part;
      }
    } else if (j->t[0].state == ST_EOF || j->t[1].state == ST_EOF) {
      break;
    }
    next = join_earliest(j);
    if (join_overlaps(j)) break;
    stream_next(next);
  }
  return next;
}

/* Computes every output row of the join (Perfetto's SPAN_JOIN, SPAN_LEFT_JOIN and
** SPAN_OUTER_JOIN): a row's ts is the later start of the two, its dur the earlier raw end
** (ts + dur) minus it, its partition the joined one; a side on a shadow gives NULL columns. The
** outer joins join the first side's real spans with the second's shadows (LEFT) or both ways
** (OUTER); a side partitioned against an unpartitioned one joins only on shadows of its present
** partitions. */
static int join_all(sj_cursor *c, const sj_vtab *v) {
  int pa = v->s[0].partition != NULL, pb = v->s[1].partition != NULL;
  join j = {.parting = pa && pb   ? PART_SAME
                       : pa || pb ? PART_MIXED
                                  : PART_NONE,
            .mixed_part = INT64_MIN};
  for (int i = 0; i < 2; i++) {
    int on = i == 0 ? v->kind == JOIN_OUTER : v->kind != JOIN_INNER;
    int part_mixed = (i ? pb : pa) && j.parting == PART_MIXED;
    int shadows = !on                                    ? SHADOW_NONE
                  : part_mixed || j.parting == PART_NONE ? SHADOW_PRESENT
                                                         : SHADOW_ALL;
    stream_init(&j.t[i], &c->r[i], i ? pb : pa, shadows, on && !part_mixed);
  }
  /* An inner join gives at most a piece per row of either side (each piece ends one of them);
  ** the outer joins' shadows may add more, which emit grows for. */
  size_t guess = c->r[0].n + c->r[1].n + 1;
  piece *out = guess > c->cap ? realloc(c->out, guess * sizeof *out) : c->out;
  if (!out) return SQLITE_NOMEM;
  if (guess > c->cap) c->out = out, c->cap = guess;
  int rc = SQLITE_OK;
  for (;;) {
    stream *next = join_find(&j);
    const stream *t1 = &j.t[0], *t2 = &j.t[1];
    if (t1->state == ST_EOF || t2->state == ST_EOF || rc != SQLITE_OK) break;
    int r1 = t1->state == ST_REAL;
    int64_t part = j.parting == PART_MIXED ? j.mixed_part : r1 ? t1->part : t2->part;
    rc = emit(c, t1->ts > t2->ts ? t1->ts : t2->ts, t1->end < t2->end ? t1->end : t2->end, part,
              r1 ? (long)t1->cur : -1, t2->state == ST_REAL ? (long)t2->cur : -1);
    stream_next(next);
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
  return join_all(c, v);
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
  if (row < 0) return SQLITE_OK;
  const cell *x = &c->r[side_i].vals[(size_t)row * (size_t)v->s[side_i].ncols + (size_t)col];
  if (x->is_int)
    sqlite3_result_int64(ctx, x->u.i);
  else if (x->u.v)
    sqlite3_result_value(ctx, x->u.v);
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

int trak__psql_span_join_register(trak_processor *p) {
  sqlite3 *db = p->db;
  static const sqlite3_module inner = SPAN_MODULE(sj_inner), left = SPAN_MODULE(sj_left),
                              outer = SPAN_MODULE(sj_outer);
  int rc = sqlite3_create_module(db, "span_join", &inner, p);
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "span_left_join", &left, p);
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "span_outer_join", &outer, p);
  return rc;
}
