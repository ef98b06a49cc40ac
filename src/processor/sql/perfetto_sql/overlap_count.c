/*
** This file holds __trak_overlap_count(rows), the C core of sched.thread_level_parallelism:
** given `(SELECT __trak_rows(ts, dur) FROM segments)` of integer ts and dur, the rows (ts, value)
** that intervals_overlap_count! gives for them: one per distinct ts among the starts and the
** ends (ts + dur, not of dur -1 or NULL), in ts order, value the number of intervals open from
** it (starts count +1, ends -1, an end meeting a start counts both). The SQL sorted every start
** and end twice (GROUP BY, then the window); here both are sorted once as integers and merged.
** A ts or dur that is not an integer (ts NULL, a real, text) is an error.
*/
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/vtab_tvf.h"

typedef struct oc_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
} oc_vtab;

typedef struct oc_cursor {
  sqlite3_vtab_cursor base;
  int64_t *ts, *value;
  size_t n, i;
} oc_cursor;

static int oc_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  (void)aux, (void)argc, (void)argv, (void)err;
  return trak__tvf_connect(db, "CREATE TABLE x(ts INTEGER, value INTEGER, rows HIDDEN)",
                           sizeof(oc_vtab), offsetof(oc_vtab, db), db, out);
}

/* rows is required; the rows come in ts order, so ORDER BY ts needs no sort. */
static int oc_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  static const trak_tvf_args args = {
      .first = 2, .n = 1, .required = 1, .cost = 1000, .rows = 1000000};
  int rc = trak__tvf_best_index(info, &args);
  if (rc == SQLITE_OK && info->nOrderBy == 1 && info->aOrderBy[0].iColumn == 0 &&
      !info->aOrderBy[0].desc)
    info->orderByConsumed = 1;
  return rc;
}

static int oc_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  (void)vt;
  oc_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static void oc_reset(oc_cursor *c) {
  free(c->ts), free(c->value);
  c->ts = c->value = NULL;
  c->n = c->i = 0;
}

static int oc_close(sqlite3_vtab_cursor *cur) {
  oc_reset((oc_cursor *)cur);
  free(cur);
  return SQLITE_OK;
}

static int i64_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Appends v to *a (n used, *cap allocated). Returns 0 or -1 out of memory. */
static int push(int64_t **a, size_t *n, size_t *cap, int64_t v) {
  if (*n == *cap) {
    size_t m = *cap ? *cap * 2 : 1024;
    int64_t *p = realloc(*a, m * sizeof *p);
    if (!p) return -1;
    *a = p, *cap = m;
  }
  (*a)[(*n)++] = v;
  return 0;
}

/* Fills c from the packed rows. Returns an SQLite code, *err set for SQLITE_ERROR. */
static int oc_build(oc_cursor *c, sqlite3_value *blob, const char **err) {
  trak_rows_reader r;
  trak_cell cells[TRAK_ROWS_MAX_COLS];
  int64_t *starts = NULL, *ends = NULL;
  size_t ns = 0, cs = 0, ne = 0, ce = 0;
  int rc = SQLITE_OK, got;
  if (trak__rows_open(blob, &r) || (r.ncols && r.ncols != 2)) {
    *err = "__trak_overlap_count: rows must be __trak_rows(ts, dur)";
    return SQLITE_ERROR;
  }
  while (rc == SQLITE_OK && (got = trak__rows_next(&r, cells)) == 1) {
    int64_t end;
    if (cells[0].type != SQLITE_INTEGER ||
        (cells[1].type != SQLITE_INTEGER && cells[1].type != SQLITE_NULL)) {
      *err = "__trak_overlap_count: ts and dur must be integers";
      rc = SQLITE_ERROR;
    } else if (push(&starts, &ns, &cs, cells[0].i)) {
      rc = SQLITE_NOMEM;
    } else if (cells[1].type == SQLITE_NULL || cells[1].i == -1) {
      continue;
    } else if (__builtin_add_overflow(cells[0].i, cells[1].i, &end)) {
      *err = "__trak_overlap_count: ts + dur overflows";
      rc = SQLITE_ERROR;
    } else if (push(&ends, &ne, &ce, end)) {
      rc = SQLITE_NOMEM;
    }
  }
  if (rc == SQLITE_OK && got < 0) {
    *err = "__trak_overlap_count: malformed rows";
    rc = SQLITE_ERROR;
  }
  if (rc == SQLITE_OK && ns + ne) {
    c->ts = malloc((ns + ne) * sizeof *c->ts);
    c->value = malloc((ns + ne) * sizeof *c->value);
    if (!c->ts || !c->value) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) {
    if (ns) qsort(starts, ns, sizeof *starts, i64_cmp);
    if (ne) qsort(ends, ne, sizeof *ends, i64_cmp);
    int64_t value = 0;
    for (size_t i = 0, j = 0; i < ns || j < ne;) {
      int64_t ts = j >= ne || (i < ns && starts[i] <= ends[j]) ? starts[i] : ends[j];
      for (; i < ns && starts[i] == ts; i++)
        value++;
      for (; j < ne && ends[j] == ts; j++)
        value--;
      c->ts[c->n] = ts;
      c->value[c->n++] = value;
    }
  }
  free(starts), free(ends);
  return rc;
}

static int oc_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                     sqlite3_value **argv) {
  (void)idx, (void)plan;
  oc_cursor *c = (oc_cursor *)cur;
  oc_reset(c);
  const char *err = NULL;
  int rc = argc == 1 ? oc_build(c, argv[0], &err) : SQLITE_ERROR;
  if (rc != SQLITE_OK) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("%s", err ? err : "__trak_overlap_count: no rows");
    oc_reset(c);
  }
  return rc;
}

static int oc_next(sqlite3_vtab_cursor *cur) {
  ((oc_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int oc_eof(sqlite3_vtab_cursor *cur) {
  return ((oc_cursor *)cur)->i >= ((oc_cursor *)cur)->n;
}

static int oc_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  oc_cursor *c = (oc_cursor *)cur;
  if (col == 0) sqlite3_result_int64(ctx, c->ts[c->i]);
  if (col == 1) sqlite3_result_int64(ctx, c->value[c->i]);
  return SQLITE_OK;
}

static int oc_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((oc_cursor *)cur)->i;
  return SQLITE_OK;
}

static const sqlite3_module oc_module = {
    .iVersion = 1,
    .xConnect = oc_connect,
    .xBestIndex = oc_best_index,
    .xDisconnect = trak__tvf_disconnect,
    .xDestroy = trak__tvf_disconnect,
    .xOpen = oc_open,
    .xClose = oc_close,
    .xFilter = oc_filter,
    .xNext = oc_next,
    .xEof = oc_eof,
    .xColumn = oc_column,
    .xRowid = oc_rowid,
};

int trak__psql_overlap_count_register(trak_processor *p) {
  return sqlite3_create_module(p->db, "__trak_overlap_count", &oc_module, NULL);
}
