/*
** This file stores a user's PERFETTO TABLE columnar when every value of its SELECT is an integer
** or NULL: an int64 array and a NULL map per column behind a read-only virtual table
** (__intrinsic_ptable), instead of SQLite's B-tree that `CREATE TABLE ... AS` fills row by row
** (a record built and inserted per row, and read back through the VM by SPAN_JOIN). The
** declared columns are those SQLite's `CREATE TABLE ... AS` gives. Equalities on a column are
** answered from a sorted copy built on first use (SQLite builds no automatic index on a
** virtual table).
*/
#define _GNU_SOURCE /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

/* One stored table. Owned by the processor's list; `dropped` once DROP TABLE has run (kept until
** no schema entry names it outside a transaction: a rolled-back DROP brings the entry back). */
struct psql_ptable {
  char key[24]; /* the virtual table's argument: "pt<serial>" */
  char *schema; /* CREATE TABLE x(...) with the declared columns */
  char **names; /* ncols column names */
  int ncols;
  size_t n;         /* rows */
  int64_t **vals;   /* ncols arrays of n values (0 where NULL) */
  uint8_t **nulls;  /* ncols maps of n flags, NULL for a column without NULLs */
  uint32_t **order; /* ncols sorted row lists (by value, NULLs left out), built on first use */
  size_t *norder;
  int dropped;
  struct psql_ptable *next;
};

static void ptable_free(psql_ptable *t) {
  for (int c = 0; c < t->ncols; c++) {
    free(t->vals[c]);
    free(t->nulls[c]);
    free(t->order[c]);
  }
  for (int c = 0; t->names && c < t->ncols; c++)
    free(t->names[c]);
  free(t->vals), free(t->nulls), free(t->order), free(t->norder), free(t->names);
  free(t->schema);
  free(t);
}

/* Frees the dropped tables that no schema entry names when no transaction is open (none can then
** bring one back: a DROP rolled back restores the entry, and SQLite connects to it again). */
static void sweep(trak_processor *p) {
  if (!sqlite3_get_autocommit(p->db)) return;
  sqlite3_stmt *st = NULL;
  for (psql_ptable **at = &p->psql->ptables; *at;) {
    psql_ptable *t = *at;
    int named = 1;
    if (t->dropped &&
        (st || sqlite3_prepare_v2(p->db,
                                  "SELECT COUNT(*) FROM sqlite_schema WHERE "
                                  "instr(sql, 'USING __intrinsic_ptable(' || ?1 || ')')",
                                  -1, &st, NULL) == SQLITE_OK)) {
      sqlite3_bind_text(st, 1, t->key, -1, SQLITE_STATIC);
      named = sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int(st, 0);
      sqlite3_reset(st);
    }
    if (t->dropped && !named) {
      *at = t->next;
      ptable_free(t);
    } else {
      at = &t->next;
    }
  }
  sqlite3_finalize(st);
}

void trak__psql_ptables_free(trak_processor *p) {
  while (p->psql->ptables) {
    psql_ptable *t = p->psql->ptables;
    p->psql->ptables = t->next;
    ptable_free(t);
  }
}

/* ---- the virtual table ---------------------------------------------------------------------- */

typedef struct pt_vtab {
  sqlite3_vtab base;
  psql_ptable *t;
} pt_vtab;

typedef struct pt_cursor {
  sqlite3_vtab_cursor base;
  const uint32_t *list; /* the rows to visit (NULL: 0 .. end) */
  size_t pos, end;
} pt_cursor;

static int pt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  trak_processor *p = aux;
  psql_ptable *t = p->psql->ptables;
  const char *key = argc > 3 ? argv[3] : "";
  while (t && strcmp(t->key, key))
    t = t->next;
  if (!t) {
    *err = sqlite3_mprintf("__intrinsic_ptable: no stored table %s", key);
    return SQLITE_ERROR;
  }
  int rc = sqlite3_declare_vtab(db, t->schema);
  if (rc != SQLITE_OK) return rc;
  pt_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->t = t;
  t->dropped = 0; /* (connected again after a DROP rolled back) */
  *out = &v->base;
  return SQLITE_OK;
}

static int pt_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

static int pt_destroy(sqlite3_vtab *vt) {
  ((pt_vtab *)vt)->t->dropped = 1;
  return pt_disconnect(vt);
}

/* An equality on a column is looked up in its sorted rows (idxNum: the column + 1). */
static int pt_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  const psql_ptable *t = ((pt_vtab *)vt)->t;
  info->idxNum = 0;
  info->estimatedCost = (double)t->n + 10;
  info->estimatedRows = (sqlite3_int64)t->n;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *k = &info->aConstraint[i];
    if (!k->usable || k->op != SQLITE_INDEX_CONSTRAINT_EQ || k->iColumn < 0) continue;
    info->idxNum = k->iColumn + 1;
    info->aConstraintUsage[i].argvIndex = 1; /* SQLite checks the term again (omit 0) */
    info->estimatedCost = 20;
    info->estimatedRows = 4;
    break;
  }
  return SQLITE_OK;
}

static int pt_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  (void)vt;
  pt_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int pt_close(sqlite3_vtab_cursor *cur) {
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int row_cmp(const void *a, const void *b, void *vals) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  int64_t vx = ((const int64_t *)vals)[x], vy = ((const int64_t *)vals)[y];
  return vx != vy ? (vx < vy ? -1 : 1) : (x > y) - (x < y);
}

/* Column c's non-NULL rows sorted by value (then row); NULL when out of memory. */
static const uint32_t *sorted_rows(psql_ptable *t, int c) {
  if (t->order[c]) return t->order[c];
  uint32_t *rows = malloc((t->n ? t->n : 1) * sizeof *rows);
  if (!rows) return NULL;
  size_t m = 0;
  for (size_t r = 0; r < t->n; r++)
    if (!t->nulls[c] || !t->nulls[c][r]) rows[m++] = (uint32_t)r;
  qsort_r(rows, m, sizeof *rows, row_cmp, t->vals[c]);
  t->order[c] = rows, t->norder[c] = m;
  return rows;
}

static int pt_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                     sqlite3_value **argv) {
  (void)plan;
  pt_cursor *c = (pt_cursor *)cur;
  psql_ptable *t = ((pt_vtab *)cur->pVtab)->t;
  c->list = NULL, c->pos = 0, c->end = t->n;
  if (idx < 1 || argc < 1) return SQLITE_OK;
  /* Only an integer (or a real holding one) is looked up; anything else is every row, which
  ** SQLite's own check of the term then filters. */
  int64_t x;
  int type = sqlite3_value_numeric_type(argv[0]);
  if (type == SQLITE_INTEGER) {
    x = sqlite3_value_int64(argv[0]);
  } else if (type == SQLITE_FLOAT) {
    double d = sqlite3_value_double(argv[0]);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || (double)(int64_t)d != d)
      return SQLITE_OK;
    x = (int64_t)d;
  } else {
    return SQLITE_OK;
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_TEXT) return SQLITE_OK; /* affinity: SQLite's */
  const uint32_t *rows = sorted_rows(t, idx - 1);
  if (!rows) return SQLITE_NOMEM;
  const int64_t *v = t->vals[idx - 1];
  size_t lo = 0, hi = t->norder[idx - 1];
  while (lo < hi) { /* the first row with value >= x */
    size_t mid = lo + (hi - lo) / 2;
    if (v[rows[mid]] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < t->norder[idx - 1] && v[rows[end]] == x)
    end++;
  c->list = rows, c->pos = lo, c->end = end;
  return SQLITE_OK;
}

static int pt_next(sqlite3_vtab_cursor *cur) {
  ((pt_cursor *)cur)->pos++;
  return SQLITE_OK;
}

static int pt_eof(sqlite3_vtab_cursor *cur) {
  const pt_cursor *c = (const pt_cursor *)cur;
  return c->pos >= c->end;
}

static inline size_t cursor_row(const pt_cursor *c) {
  return c->list ? c->list[c->pos] : c->pos;
}

static int pt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  const pt_cursor *c = (const pt_cursor *)cur;
  const psql_ptable *t = ((pt_vtab *)cur->pVtab)->t;
  size_t r = cursor_row(c);
  if (!t->nulls[col] || !t->nulls[col][r]) sqlite3_result_int64(ctx, t->vals[col][r]);
  return SQLITE_OK;
}

static int pt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)cursor_row((const pt_cursor *)cur) + 1; /* as the B-tree's rowids */
  return SQLITE_OK;
}

static const sqlite3_module pt_module = {
    .iVersion = 1,
    .xCreate = pt_connect,
    .xConnect = pt_connect,
    .xBestIndex = pt_best_index,
    .xDisconnect = pt_disconnect,
    .xDestroy = pt_destroy,
    .xOpen = pt_open,
    .xClose = pt_close,
    .xFilter = pt_filter,
    .xNext = pt_next,
    .xEof = pt_eof,
    .xColumn = pt_column,
    .xRowid = pt_rowid,
};

int trak__psql_ptable_register(trak_processor *p) {
  return sqlite3_create_module(p->db, "__intrinsic_ptable", &pt_module, p);
}

/* ---- making one ----------------------------------------------------------------------------- */

/* Appends the current row of `st` to `t` (capacity *cap). Returns 1, 0 when a value is neither
** an integer nor NULL, -1 out of memory. */
static int append_row(psql_ptable *t, sqlite3_stmt *st, size_t *cap) {
  if (t->n == *cap) {
    size_t grown = *cap ? *cap * 2 : 1024;
    for (int c = 0; c < t->ncols; c++) {
      int64_t *v = realloc(t->vals[c], grown * sizeof *v);
      if (!v) return -1;
      t->vals[c] = v;
      if (t->nulls[c]) {
        uint8_t *z = realloc(t->nulls[c], grown);
        if (!z) return -1;
        t->nulls[c] = z;
      }
    }
    *cap = grown;
  }
  for (int c = 0; c < t->ncols; c++) {
    int type = sqlite3_column_type(st, c);
    if (type == SQLITE_INTEGER) {
      t->vals[c][t->n] = sqlite3_column_int64(st, c);
      if (t->nulls[c]) t->nulls[c][t->n] = 0;
    } else if (type == SQLITE_NULL) {
      if (!t->nulls[c] && !(t->nulls[c] = calloc(*cap, 1))) return -1;
      t->vals[c][t->n] = 0;
      t->nulls[c][t->n] = 1;
    } else {
      return 0;
    }
  }
  t->n++;
  return 1;
}

/* Sets t->schema to the declared columns SQLite's `CREATE TABLE name AS select` gives (a scratch
** table made with no rows and dropped), as "CREATE TABLE x(...)", and t->names. Returns 0, or -1
** on error or when the columns are not t->ncols. */
static int ctas_schema(trak_processor *p, psql_ptable *t, const char *select) {
  static const char scratch[] = "__intrinsic_ptable_scratch";
  char *sql =
      sqlite3_mprintf("CREATE TEMP TABLE %s AS SELECT * FROM (%s) LIMIT 0", scratch, select);
  int rc = sql ? sqlite3_exec(p->db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return -1;
  t->names = calloc((size_t)t->ncols, sizeof *t->names);
  sqlite3_str *s = sqlite3_str_new(p->db);
  sqlite3_str_appendall(s, "CREATE TABLE x(");
  sqlite3_stmt *st = NULL;
  rc = t->names ? sqlite3_prepare_v2(p->db, "SELECT name, type FROM pragma_table_info(?1, 'temp')",
                                     -1, &st, NULL)
                : SQLITE_NOMEM;
  if (rc == SQLITE_OK) sqlite3_bind_text(st, 1, scratch, -1, SQLITE_STATIC);
  int n = 0;
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    if (n == t->ncols || !name || !(t->names[n] = strdup(name))) {
      rc = SQLITE_ERROR;
      break;
    }
    sqlite3_str_appendf(s, "%s\"%w\" %s", n++ ? ", " : "", name, sqlite3_column_text(st, 1));
  }
  sqlite3_finalize(st);
  sqlite3_str_appendall(s, ")");
  sqlite3_exec(p->db, "DROP TABLE temp.__intrinsic_ptable_scratch", NULL, NULL, NULL);
  char *schema = sqlite3_str_finish(s);
  t->schema = rc == SQLITE_OK && n == t->ncols && schema ? strdup(schema) : NULL;
  sqlite3_free(schema);
  return t->schema ? 0 : -1;
}

int trak__psql_ptable_create(trak_processor *p, const char *name, sqlite3_stmt *st,
                             const char *select) {
  sweep(p);
  int ncols = sqlite3_column_count(st);
  if (!ncols || !sqlite3_stmt_readonly(st)) return 0;
  psql_ptable *t = calloc(1, sizeof *t);
  if (!t) return 0;
  static unsigned serial; /* keys only need to differ within one processor */
  snprintf(t->key, sizeof t->key, "pt%u", __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED));
  t->ncols = ncols;
  t->vals = calloc((size_t)ncols, sizeof *t->vals);
  t->nulls = calloc((size_t)ncols, sizeof *t->nulls);
  t->order = calloc((size_t)ncols, sizeof *t->order);
  t->norder = calloc((size_t)ncols, sizeof *t->norder);
  int ok = t->vals && t->nulls && t->order && t->norder ? 1 : -1;
  size_t cap = 0;
  int step = SQLITE_DONE;
  while (ok == 1 && (step = sqlite3_step(st)) == SQLITE_ROW)
    ok = append_row(t, st, &cap);
  sqlite3_reset(st);
  if (ok == 1 && step != SQLITE_DONE) ok = 0; /* an error: SQLite's own path reports it */
  if (ok == 1 && ctas_schema(p, t, select)) ok = 0;
  char *sql = ok == 1 ? sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING __intrinsic_ptable(%s)",
                                        name, t->key)
                      : NULL;
  if (ok == 1) {
    t->next = p->psql->ptables;
    p->psql->ptables = t;
    if (!sql || sqlite3_exec(p->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
      p->psql->ptables = t->next;
      ok = 0;
    }
  }
  sqlite3_free(sql);
  if (ok != 1) ptable_free(t);
  return ok == 1;
}

const psql_ptable *trak__psql_ptable_named(trak_processor *p, const char *name) {
  sqlite3_stmt *st = NULL;
  const psql_ptable *found = NULL;
  /* The name as SQL resolves it: no temporary object of that name in front. */
  if (sqlite3_prepare_v2(p->db,
                         "SELECT (SELECT COUNT(*) FROM sqlite_temp_schema WHERE name = ?1 "
                         "COLLATE NOCASE), sql FROM sqlite_schema WHERE type = 'table' AND name = "
                         "?1 COLLATE NOCASE",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && !sqlite3_column_int(st, 0) &&
        sqlite3_column_text(st, 1)) {
      const char *s = (const char *)sqlite3_column_text(st, 1);
      const char *at = strstr(s, "USING __intrinsic_ptable(");
      for (const psql_ptable *t = p->psql->ptables; at && t && !found; t = t->next) {
        size_t kn = strlen(t->key);
        if (!t->dropped && !strncmp(at + 25, t->key, kn) && at[25 + kn] == ')') found = t;
      }
    }
  }
  sqlite3_finalize(st);
  return found;
}

size_t trak__psql_ptable_rows(const psql_ptable *t) {
  return t->n;
}

int trak__psql_ptable_column(const psql_ptable *t, const char *name) {
  for (int c = 0; c < t->ncols; c++)
    if (!sqlite3_stricmp(t->names[c], name)) return c;
  return -1;
}

const int64_t *trak__psql_ptable_values(const psql_ptable *t, int col, const uint8_t **nulls) {
  *nulls = t->nulls[col];
  return t->vals[col];
}
