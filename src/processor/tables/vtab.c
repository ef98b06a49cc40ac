/*
** This file holds the virtual table module that exposes the columnar tables to SQLite. Each
** table is a list of vt_col; xBestIndex takes equality and range constraints on the id column
** and on sorted columns (slice.ts, counter.ts, args.arg_set_id) to narrow a row range by binary
** search, and equality on other integer and string columns as a scan filter. SQLite rechecks
** every constraint (omit is never set), so the filters only need to be supersets.
*/
#define _GNU_SOURCE /* qsort_r */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "processor/tables/vtab.h"

/* The SQL type each column type declares. */
#define DECL_ID "BIGINT"
#define DECL_I64 "BIGINT"
#define DECL_I64N "BIGINT"
#define DECL_U32 "BIGINT"
#define DECL_U32N "BIGINT"
#define DECL_STR "TEXT"
#define DECL_F64 "DOUBLE"
#define DECL_BOOLN "BIGINT"
#define DECL_NUL "BIGINT"
#define DECL_ARG_INT "BIGINT"
#define DECL_ARG_STR "TEXT"
#define DECL_ARG_REAL "DOUBLE"
#define DECL_ARG_TYPE "TEXT"
#define DECL_ARG_DISPLAY "TEXT"

#define VT_MAX_COLS 16 /* the most columns a table may have (its indexes are per column) */

/* The columns SQL sees (every store but H), in the order of table_defs.h. */
#define VT_COL_S(T, type, field, sql, sorted)                                                      \
  {sql, DECL_##type, VT_##type, offsetof(trak_tables, T.field), sorted},
#define VT_COL_O VT_COL_S
#define VT_COL_A VT_COL_S
#define VT_COL_V(T, type, field, sql, sorted) {sql, DECL_##type, VT_##type, 0, sorted},
#define VT_COL_H(T, type, field, sql, sorted)
#define VT_COL(T, store, type, field, sql, sorted, init) VT_COL_##store(T, type, field, sql, sorted)
#define VT_TABLE(T, sql)                                                                           \
  static const vt_col T##_cols[] = {TRAK_COLUMNS_##T(VT_COL, T)};                                  \
  _Static_assert(sizeof T##_cols / sizeof *T##_cols <= VT_MAX_COLS, #T " has too many columns");   \
  const vt_table trak__vt_##T = {sql, offsetof(trak_tables, T.n), T##_cols,                        \
                                 sizeof T##_cols / sizeof *T##_cols};
TRAK_TABLES(VT_TABLE)

#define VT_TABLE_REF(T, sql) &trak__vt_##T,
static const vt_table *const all_tables[] = {TRAK_TABLES(VT_TABLE_REF)};

/* ---- column access --------------------------------------------------------------------- */

static inline const void *col_array(const trak_tables *t, const vt_col *c) {
  return *(const void *const *)((const char *)t + c->off);
}

static size_t table_rows(const trak_tables *t, const vt_table *tbl) {
  return *(const size_t *)((const char *)t + tbl->count_off);
}

/* The integer value of a column for filtering; returns 0 when the column is not integral. */
static inline int col_int(const trak_tables *t, const vt_col *c, uint32_t row, int64_t *out) {
  switch (c->kind) {
  case VT_ID:
    *out = row;
    return 1;
  case VT_I64:
    *out = ((const int64_t *)col_array(t, c))[row];
    return 1;
  case VT_U32:
  case VT_U32N:
  case VT_STR:
    *out = ((const uint32_t *)col_array(t, c))[row];
    return 1;
  default:
    return 0;
  }
}

static int arg_is_int(uint8_t type) {
  return type == TRAK_ARG_INT || type == TRAK_ARG_UINT || type == TRAK_ARG_POINTER ||
         type == TRAK_ARG_BOOL;
}

static void arg_display(const trak_tables *t, uint32_t row, sqlite3_context *ctx) {
  char buf[64];
  int64_t v = t->args.int_value[row];
  switch (t->args.value_type[row]) {
  case TRAK_ARG_INT:
    snprintf(buf, sizeof buf, "%" PRId64, v);
    break;
  case TRAK_ARG_UINT:
    snprintf(buf, sizeof buf, "%" PRIu64, (uint64_t)v);
    break;
  case TRAK_ARG_POINTER:
    snprintf(buf, sizeof buf, "0x%" PRIx64, (uint64_t)v);
    break;
  case TRAK_ARG_BOOL:
    snprintf(buf, sizeof buf, "%s", v ? "true" : "false");
    break;
  case TRAK_ARG_REAL:
    /* As SQLite turns a REAL into TEXT, which is what Perfetto's display_value shows. */
    sqlite3_snprintf(sizeof buf, buf, "%!.15g", t->args.real_value[row]);
    break;
  case TRAK_ARG_STRING:
  case TRAK_ARG_JSON: {
    const char *s = trak__str(&t->strings, t->args.string_value[row]);
    if (s)
      sqlite3_result_text(ctx, s, -1, SQLITE_STATIC);
    else
      sqlite3_result_null(ctx);
    return;
  }
  default:
    sqlite3_result_null(ctx);
    return;
  }
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

void trak__vt_result(const trak_tables *t, const vt_col *c, uint32_t row, sqlite3_context *ctx) {
  const void *a = c->off ? col_array(t, c) : NULL;
  switch (c->kind) {
  case VT_ID:
    sqlite3_result_int64(ctx, row);
    return;
  case VT_I64:
    sqlite3_result_int64(ctx, ((const int64_t *)a)[row]);
    return;
  case VT_I64N: {
    if (!a) { /* an optional column the trace has no data for */
      sqlite3_result_null(ctx);
      return;
    }
    int64_t v = ((const int64_t *)a)[row];
    if (v == INT64_MIN)
      sqlite3_result_null(ctx);
    else
      sqlite3_result_int64(ctx, v);
    return;
  }
  case VT_U32:
    sqlite3_result_int64(ctx, ((const uint32_t *)a)[row]);
    return;
  case VT_U32N: {
    uint32_t v = ((const uint32_t *)a)[row];
    if (v == TRAK_NULL_U32)
      sqlite3_result_null(ctx);
    else
      sqlite3_result_int64(ctx, v);
    return;
  }
  case VT_STR: {
    uint32_t id = ((const uint32_t *)a)[row];
    if (!id)
      sqlite3_result_null(ctx);
    else
      sqlite3_result_text(ctx, t->strings.str.v[id], (int)t->strings.len.v[id], SQLITE_STATIC);
    return;
  }
  case VT_F64:
    sqlite3_result_double(ctx, ((const double *)a)[row]);
    return;
  case VT_BOOLN: {
    uint8_t v = ((const uint8_t *)a)[row];
    if (v == 2)
      sqlite3_result_null(ctx);
    else
      sqlite3_result_int(ctx, v);
    return;
  }
  case VT_NUL:
    sqlite3_result_null(ctx);
    return;
  case VT_ARG_INT:
    if (arg_is_int(t->args.value_type[row]))
      sqlite3_result_int64(ctx, t->args.int_value[row]);
    else
      sqlite3_result_null(ctx);
    return;
  case VT_ARG_STR: {
    uint8_t type = t->args.value_type[row];
    const char *s = trak__str(&t->strings, t->args.string_value[row]);
    if ((type == TRAK_ARG_STRING || type == TRAK_ARG_JSON) && s)
      sqlite3_result_text(ctx, s, -1, SQLITE_STATIC);
    else
      sqlite3_result_null(ctx);
    return;
  }
  case VT_ARG_REAL:
    if (t->args.value_type[row] == TRAK_ARG_REAL)
      sqlite3_result_double(ctx, t->args.real_value[row]);
    else
      sqlite3_result_null(ctx);
    return;
  case VT_ARG_TYPE:
    sqlite3_result_text(ctx, trak__arg_type_names[t->args.value_type[row]], -1, SQLITE_STATIC);
    return;
  case VT_ARG_DISPLAY:
    arg_display(t, row, ctx);
    return;
  }
}

char *trak__vt_schema(const vt_table *tbl, const char *hidden) {
  char *s = sqlite3_mprintf("CREATE TABLE x(");
  for (int i = 0; i < tbl->ncols; i++) {
    char *next =
        sqlite3_mprintf("%s%s%s %s", s, i ? ", " : "", tbl->cols[i].name, tbl->cols[i].decl);
    sqlite3_free(s);
    s = next;
  }
  char *done = sqlite3_mprintf("%s%s%s)", s, hidden ? ", " : "", hidden ? hidden : "");
  sqlite3_free(s);
  return done;
}

/* ---- the module ------------------------------------------------------------------------ */

/* Whether `c`'s values ascend with the row index now: rows appended after the import
** (annotations) keep ids in order but not timestamps. */
static int col_sorted(const trak_tables *t, const vt_col *c) {
  return c->sorted && (c->kind == VT_ID || !t->generation);
}

/* An equality index of one column, built on first use: the rows of each value in row order.
** Keys are the column's value + 1, with 0 for NULL (string ids are used as they are). */
typedef struct vt_index {
  uint32_t *off; /* nkeys + 1 offsets into rows */
  uint32_t *rows;
  uint32_t nkeys;
  uint32_t generation; /* of the tables when built */
} vt_index;

typedef struct vt_vtab {
  sqlite3_vtab base;
  const trak_tables *t;
  const vt_table *tbl;
  vt_index index[VT_MAX_COLS];
} vt_vtab;

/* One constraint the cursor applies: column, operator and value. */
typedef struct vt_filter {
  int col;
  unsigned char op;
  int64_t value;
} vt_filter;

typedef struct vt_cursor {
  sqlite3_vtab_cursor base;
  uint32_t row, lo, end; /* current row and the range [lo, end) rows must be in */
  vt_filter filters[8];
  int nfilters;
  const uint32_t *list; /* list mode: candidate rows (an index's, or `owned`), or NULL */
  size_t list_n, list_i;
  uint32_t *owned; /* GROUP BY mode: the matching rows, equal values adjacent */
} vt_cursor;

#define PLAN_GROUPED 1 /* idxNum bit: rows come grouped by column idxNum >> 8 */

static int vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  const trak_tables *t = aux;
  const vt_table *tbl = NULL;
  for (size_t i = 0; i < sizeof all_tables / sizeof *all_tables; i++)
    if (!strcmp(all_tables[i]->name, argv[2])) tbl = all_tables[i];
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
  v->t = t;
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

static unsigned char op_char(int op) {
  switch (op) {
  case SQLITE_INDEX_CONSTRAINT_EQ:
    return '=';
  case SQLITE_INDEX_CONSTRAINT_GT:
    return '>';
  case SQLITE_INDEX_CONSTRAINT_GE:
    return 'g';
  case SQLITE_INDEX_CONSTRAINT_LT:
    return '<';
  case SQLITE_INDEX_CONSTRAINT_LE:
    return 'l';
  default:
    return 0;
  }
}

static int vt_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  const vt_table *tbl = ((vt_vtab *)vt)->tbl;
  const trak_tables *t = ((vt_vtab *)vt)->t;
  double rows = (double)table_rows(t, tbl) + 1;
  double cost = rows;
  char plan[2 * 8 + 1];
  int n = 0, unique = 0, lookup = 0; /* lookup: an id or index equality drives the scan */
  for (int i = 0; i < info->nConstraint && n < 8; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (!c->usable || c->iColumn < 0 || c->iColumn >= tbl->ncols) continue;
    const vt_col *col = &tbl->cols[c->iColumn];
    unsigned char op = op_char(c->op);
    int integral =
        col->kind == VT_ID || col->kind == VT_I64 || col->kind == VT_U32 || col->kind == VT_U32N;
    if (!op || (!integral && !(col->kind == VT_STR && op == '='))) continue;
    if (!col_sorted(t, col) && op != '=') continue;
    plan[2 * n] = (char)('A' + c->iColumn);
    plan[2 * n + 1] = (char)op;
    info->aConstraintUsage[i].argvIndex = ++n;
    if (col->kind == VT_ID && op == '=')
      unique = 1, cost = 1, rows = 1;
    else if (col_sorted(t, col) && op == '=')
      cost = cost > 20 ? 20 : cost, rows = rows > 4 ? 4 : rows;
    else if (col_sorted(t, col))
      cost /= 4, rows /= 4;
    else if (col->kind == VT_I64)
      cost /= 2, rows /= 10; /* a scan, but cheaper than SQLite filtering every row */
    else
      cost = cost / 10 + 10, rows /= 10; /* an equality index, built on first use */
    if (op == '=' && col->kind != VT_I64 && !col_sorted(t, col)) lookup = 1;
  }
  plan[2 * n] = 0;
  info->idxStr = sqlite3_mprintf("%s", plan);
  info->needToFreeIdxStr = 1;
  info->estimatedCost = cost;
  info->estimatedRows = (sqlite3_int64)(rows < 1 ? 1 : rows);
  if (unique) info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  /* GROUP BY one id or string column: rows only need equal values adjacent, which a counting
  ** sort of the matching rows gives without SQLite's sorter. Not for a lookup (the table is then
  ** an inner loop, its few rows are grouped already, and sorting per outer row costs a pass
  ** over the group keys each time). */
  int gcol = info->nOrderBy == 1 ? info->aOrderBy[0].iColumn : -1;
  if (gcol >= 0 && gcol < tbl->ncols && !unique && !lookup && sqlite3_vtab_distinct(info) == 1 &&
      (tbl->cols[gcol].kind == VT_STR || tbl->cols[gcol].kind == VT_U32 ||
       tbl->cols[gcol].kind == VT_U32N) &&
      !tbl->cols[gcol].sorted) {
    info->idxNum = PLAN_GROUPED | gcol << 8;
    info->orderByConsumed = 1;
  }
  if (info->nOrderBy == 1 && !info->aOrderBy[0].desc && info->aOrderBy[0].iColumn >= 0 &&
      info->aOrderBy[0].iColumn < tbl->ncols &&
      col_sorted(t, &tbl->cols[info->aOrderBy[0].iColumn]))
    info->orderByConsumed = 1;
  return SQLITE_OK;
}

static int vt_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  vt_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int vt_close(sqlite3_vtab_cursor *cur) {
  free(((vt_cursor *)cur)->owned);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* First row in [lo, hi) whose sorted column value is >= v (or > v when `strict`). */
static uint32_t lower_bound(const trak_tables *t, const vt_col *c, uint32_t lo, uint32_t hi,
                            int64_t v, int strict) {
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int64_t x = 0;
    col_int(t, c, mid, &x);
    if (strict ? x <= v : x < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int filter_match(const trak_tables *t, const vt_table *tbl, const vt_cursor *c) {
  for (int i = 0; i < c->nfilters; i++) {
    int64_t x = 0;
    col_int(t, &tbl->cols[c->filters[i].col], c->row, &x);
    if (x != c->filters[i].value) return 0;
  }
  return 1;
}

/* Moves to the first matching row at or after the current position (row, or list_i). */
static void skip_unmatched(vt_cursor *c) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  if (c->list) {
    for (; c->list_i < c->list_n; c->list_i++) {
      c->row = c->list[c->list_i];
      if (c->row >= c->lo && c->row < c->end && filter_match(v->t, v->tbl, c)) return;
    }
    return;
  }
  if (!c->nfilters) return;
  while (c->row < c->end && !filter_match(v->t, v->tbl, c))
    c->row++;
}

/* Narrows [*lo, *hi) by one constraint; returns 0 if no row can match. */
static int apply_constraint(const trak_tables *t, const vt_table *tbl, vt_cursor *c, int col,
                            unsigned char op, sqlite3_value *val, uint32_t *lo, uint32_t *hi) {
  const vt_col *cd = &tbl->cols[col];
  int type = sqlite3_value_type(val);
  if (type == SQLITE_NULL) return 0; /* comparisons with NULL are never true */
  if (cd->kind == VT_STR) {
    if (type != SQLITE_TEXT) return 1;
    const char *s = (const char *)sqlite3_value_text(val);
    uint32_t id = trak__strpool_find(&t->strings, s, (size_t)sqlite3_value_bytes(val));
    if (!id) return 0;
    if (c->nfilters < 8) c->filters[c->nfilters++] = (vt_filter){col, '=', id};
    return 1;
  }
  if (type != SQLITE_INTEGER) return 1; /* leave unusual comparisons to SQLite */
  int64_t v = sqlite3_value_int64(val);
  if (!col_sorted(t, cd)) {
    if (op != '=') return 1; /* planned before rows were appended: SQLite rechecks it */
    if (c->nfilters < 8) c->filters[c->nfilters++] = (vt_filter){col, '=', v};
    return 1;
  }
  uint32_t a = *lo, b = *hi;
  switch (op) {
  case '=':
    a = lower_bound(t, cd, a, b, v, 0), b = lower_bound(t, cd, a, b, v, 1);
    break;
  case '>':
    a = lower_bound(t, cd, a, b, v, 1);
    break;
  case 'g':
    a = lower_bound(t, cd, a, b, v, 0);
    break;
  case '<':
    b = lower_bound(t, cd, a, b, v, 0);
    break;
  case 'l':
    b = lower_bound(t, cd, a, b, v, 1);
    break;
  }
  *lo = a, *hi = b;
  return a < b;
}

/* Orders group keys (string id + 1, 0 for NULL) as SQLite's sorter would: NULL first, then
** by the strings' bytes (BINARY collation). */
static int key_cmp(const void *a, const void *b, void *pool) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  if (!x || !y) return (x != 0) - (y != 0);
  const trak_strpool *sp = pool;
  uint32_t lx = sp->len.v[x - 1], ly = sp->len.v[y - 1];
  int c = memcmp(sp->str.v[x - 1], sp->str.v[y - 1], lx < ly ? lx : ly);
  return c ? c : (lx > ly) - (lx < ly);
}

/* GROUP BY mode: collects the rows that match the cursor's range and filters, then orders them
** by the value of `col` with a counting sort whose groups come in SQLite's sort order, so the
** output is what SQLite's own sorter would have produced. */
static int group_rows(vt_cursor *c, const vt_col *col) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  const trak_tables *t = v->t;
  const uint32_t *values = col_array(t, col);
  size_t n = 0, cap = c->end > c->row ? c->end - c->row : 1;
  uint32_t *rows = malloc(cap * sizeof *rows);
  if (!rows) return SQLITE_NOMEM;
  uint32_t max = 0;
  for (; c->row < c->end; c->row++, skip_unmatched(c)) {
    if (c->row >= c->end) break;
    uint32_t key = values[c->row] + 1; /* TRAK_NULL_U32 wraps to 0: NULLs group first */
    if (col->kind == VT_STR) key = values[c->row] ? values[c->row] + 1 : 0;
    if (key > max) max = key;
    rows[n++] = c->row;
  }
  size_t nkeys = (size_t)max + 1;
  uint32_t *start = calloc(nkeys, sizeof *start), *keys = malloc(nkeys * sizeof *keys);
  uint32_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
  if (!start || !keys || !sorted) {
    free(rows), free(start), free(keys), free(sorted);
    return SQLITE_NOMEM;
  }
#define GROUP_KEY(r) (col->kind == VT_STR ? (values[r] ? values[r] + 1 : 0) : values[r] + 1)
  for (size_t i = 0; i < n; i++)
    start[GROUP_KEY(rows[i])]++;
  size_t used = 0;
  for (size_t k = 0; k < nkeys; k++)
    if (start[k]) keys[used++] = (uint32_t)k;
  if (col->kind == VT_STR) qsort_r(keys, used, sizeof *keys, key_cmp, (void *)&t->strings);
  uint32_t at = 0;
  for (size_t i = 0; i < used; i++) {
    uint32_t size = start[keys[i]];
    start[keys[i]] = at;
    at += size;
  }
  for (size_t i = 0; i < n; i++)
    sorted[start[GROUP_KEY(rows[i])]++] = rows[i];
#undef GROUP_KEY
  free(rows);
  free(start);
  free(keys);
  c->owned = sorted;
  c->list = sorted;
  c->list_n = n;
  c->list_i = 0;
  skip_unmatched(c);
  return SQLITE_OK;
}

/* The equality index of column `col` of the table, built on first use; NULL on OOM. */
static const vt_index *index_get(vt_vtab *v, int col) {
  vt_index *ix = &v->index[col];
  const trak_tables *t = v->t;
  if (ix->off && ix->generation == t->generation) return ix;
  free(ix->off), free(ix->rows);
  ix->off = ix->rows = NULL;
  ix->generation = t->generation;
  const vt_col *cd = &v->tbl->cols[col];
  const uint32_t *values = col_array(t, cd);
  size_t n = table_rows(t, v->tbl);
  uint32_t max = 0;
#define INDEX_KEY(x) (cd->kind == VT_STR ? (x) : (x) == TRAK_NULL_U32 ? 0 : (x) + 1)
  for (size_t r = 0; r < n; r++)
    if (INDEX_KEY(values[r]) > max) max = INDEX_KEY(values[r]);
  ix->nkeys = max + 1;
  ix->off = calloc((size_t)max + 2, sizeof *ix->off);
  ix->rows = malloc((n ? n : 1) * sizeof *ix->rows);
  uint32_t *fill = malloc(((size_t)max + 2) * sizeof *fill);
  if (!ix->off || !ix->rows || !fill) {
    free(ix->off), free(ix->rows), free(fill);
    ix->off = ix->rows = NULL;
    return NULL;
  }
  for (size_t r = 0; r < n; r++)
    ix->off[INDEX_KEY(values[r]) + 1]++;
  for (size_t k = 0; k <= max; k++)
    ix->off[k + 1] += ix->off[k];
  memcpy(fill, ix->off, ((size_t)max + 2) * sizeof *fill);
  for (size_t r = 0; r < n; r++)
    ix->rows[fill[INDEX_KEY(values[r])]++] = (uint32_t)r;
#undef INDEX_KEY
  free(fill);
  return ix;
}

static int vt_filter_fn(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                        sqlite3_value **argv) {
  vt_cursor *c = (vt_cursor *)cur;
  vt_vtab *v = (vt_vtab *)cur->pVtab;
  const trak_tables *t = v->t;
  uint32_t lo = 0, hi = (uint32_t)table_rows(t, v->tbl);
  c->nfilters = 0;
  int ok = 1;
  for (int i = 0; i < argc && ok && plan && plan[2 * i]; i++)
    ok = apply_constraint(t, v->tbl, c, plan[2 * i] - 'A', (unsigned char)plan[2 * i + 1], argv[i],
                          &lo, &hi);
  c->row = ok ? lo : hi;
  c->lo = lo;
  c->end = hi;
  free(c->owned);
  c->owned = NULL;
  c->list = NULL;
  c->list_n = c->list_i = 0;
  const vt_filter *f = NULL; /* the first equality on a 32-bit column: it has an index */
  for (int i = 0; i < c->nfilters && !f; i++) {
    vt_kind kind = v->tbl->cols[c->filters[i].col].kind;
    if (kind == VT_U32 || kind == VT_U32N || kind == VT_STR) f = &c->filters[i];
  }
  if (ok && f && !(idx & PLAN_GROUPED)) {
    /* Walk the rows of that value instead of the whole range. */
    const vt_index *ix = index_get(v, f->col);
    if (!ix) return SQLITE_NOMEM;
    int64_t key = v->tbl->cols[f->col].kind == VT_STR ? f->value : f->value + 1;
    if (f->value == TRAK_NULL_U32 && v->tbl->cols[f->col].kind == VT_U32N) key = 0;
    c->list = ix->rows; /* an empty list when the key is out of range */
    if (key >= 0 && key < ix->nkeys) {
      c->list = ix->rows + ix->off[key];
      c->list_n = ix->off[key + 1] - ix->off[key];
    }
  }
  skip_unmatched(c);
  if (idx & PLAN_GROUPED) return group_rows(c, &v->tbl->cols[idx >> 8]);
  return SQLITE_OK;
}

static int vt_next(sqlite3_vtab_cursor *cur) {
  vt_cursor *c = (vt_cursor *)cur;
  if (c->list) {
    c->list_i++;
    skip_unmatched(c);
    return SQLITE_OK;
  }
  c->row++;
  skip_unmatched(c);
  return SQLITE_OK;
}

static int vt_eof(sqlite3_vtab_cursor *cur) {
  vt_cursor *c = (vt_cursor *)cur;
  if (c->list) return c->list_i >= c->list_n;
  return c->row >= c->end;
}

static int vt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  vt_cursor *c = (vt_cursor *)cur;
  vt_vtab *v = (vt_vtab *)cur->pVtab;
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
    .xBestIndex = vt_best_index,
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

int trak__vtab_register(sqlite3 *db, trak_tables *t) {
  int rc = sqlite3_create_module(db, "trak_columnar", &vt_module, t);
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof all_tables / sizeof *all_tables; i++) {
    char *sql = sqlite3_mprintf("CREATE VIRTUAL TABLE %s USING trak_columnar", all_tables[i]->name);
    rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_free(sql);
  }
  return rc;
}
