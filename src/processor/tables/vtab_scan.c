/*
** This file holds the trak_columnar virtual-table module that shows every columnar table to
** SQLite: connecting, cursors and xFilter, which applies the plan (vtab_plan.c) through the
** filters (vtab_filter.c), the driver (vtab_index.c) and the cursor's own orders
** (vtab_order.c), then steps the rows. Constraints the cursor applies exactly are omitted from
** SQLite's own checks.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/tables/vtab_scan.h"

static int vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  (void)argc;
  const vt_table *tbl = NULL;
  for (size_t i = 0; trak__vt_table(i); i++)
    if (!strcmp(trak__vt_table(i)->name, argv[2])) tbl = trak__vt_table(i);
  if (!tbl) {
    *err = sqlite3_mprintf("no columnar table %s", argv[2]);
    return SQLITE_ERROR;
  }
  char *schema = trak__vt_schema(tbl, NULL);
  int rc = sqlite3_declare_vtab(db, schema);
  sqlite3_free(schema);
  if (rc != SQLITE_OK) return rc;
  vt_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->db = db;
  v->t = aux;
  v->tbl = tbl;
  *out = &v->base;
  return SQLITE_OK;
}

static int vt_disconnect(sqlite3_vtab *vt) {
  vt_vtab *v = (vt_vtab *)vt;
  for (int i = 0; i < VT_MAX_COLS; i++)
    free(v->index[i].off), free(v->index[i].rows);
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* ---- cursors --------------------------------------------------------------------------- */

static int vt_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  (void)vt;
  vt_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static void cursor_reset(vt_cursor *c) {
  for (int i = 0; i < c->nfilters; i++)
    trak__vt_filter_free(&c->filters[i]);
  c->nfilters = 0;
  c->step = 0;
  c->rc = SQLITE_OK;
  free(c->owned);
  c->owned = NULL;
  c->list = NULL;
  free(c->ahead);
  c->ahead = NULL;
  c->nahead = c->iahead = 0;
  c->ahead_rc = SQLITE_OK;
}

/* ---- read-ahead ------------------------------------------------------------------------ */

enum {
  AHEAD_ROWS = 512,  /* the most rows found per batch */
  AHEAD_SCAN = 4096, /* the most candidates read per batch */
  AHEAD_DIST = 16    /* how many rows before its turn a row's columns are fetched */
};

/* Asks the memory for the columns SQLite has read through cursor `c` at `row` (stored arrays
** only): the rows of a filtered scan lie apart, and each read would otherwise wait for its own
** cache miss. Can't fail; answers nothing. Always inlined: GCC finds a function of prefetches
** alone free of effects and drops its calls. */
static inline __attribute__((always_inline)) void ahead_fetch(const vt_cursor *c, const vt_vtab *v,
                                                              uint32_t row) {
  for (uint64_t u = c->used; u; u &= u - 1) {
    const vt_col *col = &v->tbl->cols[__builtin_ctzll(u)];
    const char *a = col->calc || !col->off ? NULL : trak__vt_array(v->t, col);
    if (!a) continue;
    size_t width = col->kind == VT_I64 || col->kind == VT_I64N || col->kind == VT_F64 ? 8
                   : col->kind == VT_BOOLN                                            ? 1
                                                                                      : 4;
    __builtin_prefetch(a + (size_t)row * width);
  }
}

/* Finds the next rows that pass into c->ahead, reading at most AHEAD_SCAN candidates a batch
** (a LIMIT stops the statement early: the scan reads few rows past it), and makes the first the
** current row; the batch is empty only at the scan's end. A filter's failure ends the scan after
** the rows that passed before it (its code in c->rc then). Can't fail otherwise. */
static void ahead_fill(vt_cursor *c, const vt_vtab *v) {
  size_t n = c->n;
  c->nahead = c->iahead = 0;
  if (c->ahead_rc) c->rc = c->ahead_rc, c->pos = n;
  while (!c->nahead && c->pos < n && !c->rc) {
    c->n = n - c->pos > AHEAD_SCAN ? c->pos + AHEAD_SCAN : n;
    c->nahead = trak__vt_skip_batch(c, c->ahead, AHEAD_ROWS);
    c->n = n;
    if (c->rc) c->pos = n;
  }
  if (c->rc && c->nahead) c->ahead_rc = c->rc, c->rc = SQLITE_OK;
  for (size_t i = 0; i < c->nahead && i < AHEAD_DIST; i++)
    ahead_fetch(c, v, c->ahead[i]);
  if (c->nahead) c->row = c->ahead[0];
}

static int vt_close(sqlite3_vtab_cursor *cur) {
  cursor_reset((vt_cursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int vt_filter_fn(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                        sqlite3_value **argv) {
  vt_cursor *c = (vt_cursor *)cur;
  vt_vtab *v = (vt_vtab *)cur->pVtab;
  cursor_reset(c);
  uint32_t lo = 0, hi = (uint32_t)trak__vt_rows(v->t, v->tbl);
  int ok = 1;
  int64_t limit = -1, offset = 0;
  for (int i = 0; i < argc && ok > 0 && plan && plan[2 * i]; i++) {
    if (plan[2 * i] == '@') {
      int64_t x = sqlite3_value_int64(argv[i]);
      if (plan[2 * i + 1] == 'L')
        limit = x;
      else
        offset = x > 0 ? x : 0;
      continue;
    }
    ok = trak__vt_add_constraint(c, plan[2 * i] - 'A', (unsigned char)plan[2 * i + 1], argv[i], &lo,
                                 &hi);
  }
  if (ok < 0) return -ok;
  c->lo = lo, c->end = ok ? hi : lo;
  c->n = c->end - c->lo, c->pos = 0;
  c->desc = (idx & (PLAN_DESC | PLAN_TOP)) == PLAN_DESC;
  int rc = c->n ? trak__vt_choose_driver(c) : SQLITE_OK;
  if (rc) return rc;
  if (idx & PLAN_GROUPED) {
    rc = trak__vt_group(c, &v->tbl->cols[idx >> 8]);
  } else if (idx & PLAN_SORT) {
    vt_sort_term terms[VT_SORT_TERMS];
    rc = trak__vt_sort(c, terms, trak__vt_sort_decode(v->tbl, idx, terms),
                       (idx & PLAN_ROW_DESC) != 0);
  } else if (idx & PLAN_TOP) {
    size_t k = limit < 0 || limit > INT64_MAX - offset ? SIZE_MAX : (size_t)(limit + offset);
    rc = trak__vt_top(c, &v->tbl->cols[idx >> 8], (idx & PLAN_DESC) != 0,
                      (idx & PLAN_ROW_DESC) != 0, k);
  } else if (c->nfilters && !c->desc && c->n > AHEAD_ROWS &&
             (c->ahead = malloc(AHEAD_ROWS * sizeof *c->ahead))) {
    ahead_fill(c, v);
  } else {
    trak__vt_skip(c);
  }
  c->step = !c->nfilters && !c->list ? (c->desc ? -1 : 1) : 0;
  return rc ? rc : c->rc;
}

static int vt_next(sqlite3_vtab_cursor *cur) {
  vt_cursor *c = (vt_cursor *)cur;
  if (c->step) { /* a plain range: every row (past the end, eof ignores the row) */
    c->row += (uint32_t)c->step;
    c->pos++;
    return SQLITE_OK;
  }
  if (c->ahead) {
    vt_vtab *v = (vt_vtab *)cur->pVtab;
    if (++c->iahead >= c->nahead) {
      ahead_fill(c, v);
    } else {
      c->row = c->ahead[c->iahead];
      if (c->iahead + AHEAD_DIST < c->nahead) ahead_fetch(c, v, c->ahead[c->iahead + AHEAD_DIST]);
    }
    return c->rc;
  }
  if (++c->pos < c->n && !c->nfilters) {
    c->row = c->list[c->desc ? c->n - 1 - c->pos : c->pos];
    if (!c->desc && c->pos + AHEAD_DIST < c->n)
      ahead_fetch(c, (vt_vtab *)cur->pVtab, c->list[c->pos + AHEAD_DIST]);
    if (c->row >= c->lo && c->row < c->end) return SQLITE_OK;
  }
  trak__vt_skip(c);
  return c->rc;
}

static int vt_eof(sqlite3_vtab_cursor *cur) {
  vt_cursor *c = (vt_cursor *)cur;
  return c->ahead ? c->iahead >= c->nahead : c->pos >= c->n;
}

static int vt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  vt_cursor *c = (vt_cursor *)cur;
  vt_vtab *v = (vt_vtab *)cur->pVtab;
  if (col >= 0 && col < 64) c->used |= 1ull << col;
  trak__vt_result(v->t, &v->tbl->cols[col], c->row, ctx);
  return SQLITE_OK;
}

static int vt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((vt_cursor *)cur)->row;
  return SQLITE_OK;
}

static const sqlite3_module vt_module = {
    .iVersion = 1,
    .xCreate = vt_connect,
    .xConnect = vt_connect,
    .xBestIndex = trak__vt_best_index,
    .xDisconnect = vt_disconnect,
    .xDestroy = vt_disconnect,
    .xOpen = vt_open,
    .xClose = vt_close,
    .xFilter = vt_filter_fn,
    .xNext = vt_next,
    .xEof = vt_eof,
    .xColumn = vt_column,
    .xRowid = vt_rowid,
};

/* The default creator: runs the statement. */
static int exec_create(void *ctx, const char *sql) {
  return sqlite3_exec(ctx, sql, NULL, NULL, NULL);
}

int trak__vtab_register(sqlite3 *db, trak_tables *t, trak_vtab_create_fn create, void *ctx) {
  int rc = sqlite3_create_module(db, "trak_columnar", &vt_module, t);
  if (rc == SQLITE_OK) rc = trak__vt_row_count_register(db, t);
  if (!create) create = exec_create, ctx = db;
  for (size_t i = 0; rc == SQLITE_OK && trak__vt_table(i); i++) {
    char *sql =
        sqlite3_mprintf("CREATE VIRTUAL TABLE %s USING trak_columnar", trak__vt_table(i)->name);
    rc = sql ? create(ctx, sql) : SQLITE_NOMEM;
    sqlite3_free(sql);
  }
  return rc;
}
