/*
** This file holds the trak_columnar virtual-table module's planning and cursors: which rows of a
** columnar table a scan visits and in what order. Every constraint SQLite offers on an integral
** or string column becomes a closed range of the column's integer values (string ids for
** strings), NULL or not NULL, or a set (IN); the scan is driven by whichever of these gives the
** fewest candidate rows: the row id itself, a binary search on a sorted column, the rows of one
** value in a lazily built equality index, or the union of those for an IN list. The others are
** checked in C on each candidate. Constraints the cursor applies exactly are omitted from
** SQLite's own checks; comparisons follow SQLite's (numeric affinity for the value, integers
** compared exactly with reals, NULL never matching).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "processor/tables/vtab_scan.h"

/* ---- values ---------------------------------------------------------------------------- */

/* Whether the cursor can compare column kind `k` itself (as an integer, NULL aside). */
static int kind_filterable(vt_kind k) {
  return k == VT_ID || k == VT_I64 || k == VT_I64N || k == VT_U32 || k == VT_U32N || k == VT_STR ||
         k == VT_BOOLN;
}

/* Whether column `c` gets an equality index (32-bit stored values). */
static int col_indexed(const vt_col *c) {
  return !c->calc && (c->kind == VT_U32 || c->kind == VT_U32N || c->kind == VT_STR);
}

/* Whether `c`'s values ascend with the row index now: rows appended after the import
** (annotations) keep ids in order but not timestamps. */
static int col_sorted(const trak_tables *t, const vt_col *c) {
  return c->sorted && (c->kind == VT_ID || !t->generation);
}

/* Turns the comparison `column op val` on an integral column into the closed range [*lo, *hi]
** of the column values that satisfy it, as SQLite compares: the value gets numeric affinity
** (text that reads as a number becomes that number, other text and blobs sort after every
** number), integers compare exactly with reals, NULL matches nothing. Returns 0 when no value
** does, -1 on OOM. */
static int value_range(sqlite3_value *val, unsigned char op, int64_t *lo, int64_t *hi) {
  *lo = INT64_MIN, *hi = INT64_MAX;
  sqlite3_value *dup = NULL;
  int type = sqlite3_value_type(val), ok = 1;
  if (type == SQLITE_TEXT) { /* a copy: the register may be read elsewhere as text */
    if (!(dup = sqlite3_value_dup(val))) return -1;
    type = sqlite3_value_numeric_type(dup);
    val = dup;
  }
  if (type == SQLITE_INTEGER) {
    int64_t v = sqlite3_value_int64(val);
    if (op == '=')
      *lo = *hi = v;
    else if (op == '>')
      ok = v != INT64_MAX, *lo = v + (v != INT64_MAX);
    else if (op == 'g')
      *lo = v;
    else if (op == '<')
      ok = v != INT64_MIN, *hi = v - (v != INT64_MIN);
    else
      *hi = v;
  } else if (type == SQLITE_FLOAT) {
    double d = sqlite3_value_double(val);
    if (isnan(d))
      ok = 0;
    else if (d >= 0x1p63) /* above every int64 */
      ok = op == '<' || op == 'l';
    else if (d < -0x1p63) /* below every int64 */
      ok = op == '>' || op == 'g';
    else {
      double f = floor(d);
      int64_t fi = (int64_t)f; /* exact: |f| < 2^63 */
      int whole = f == d;
      if (op == '=')
        ok = whole, *lo = *hi = fi;
      else if (op == '>')
        *lo = fi + 1; /* fi < 2^63 - 1: d < 2^63 is at most 2^63 - 1024 */
      else if (op == 'g')
        *lo = whole ? fi : fi + 1;
      else if (op == '<')
        ok = !(whole && fi == INT64_MIN), *hi = whole ? fi - (fi != INT64_MIN) : fi;
      else
        *hi = fi;
    }
  } else if (type == SQLITE_NULL)
    ok = 0;
  else /* text that is no number, or a blob: after every number */
    ok = op == '<' || op == 'l';
  sqlite3_value_free(dup);
  return ok && *lo <= *hi;
}

/* ---- the virtual table ----------------------------------------------------------------- */

/* The index key of a value of an indexed column (NULL: `null` set); -1 for a value no row of
** the column can hold. */
static inline int64_t index_key(vt_kind kind, int null, int64_t v) {
  if (null) return 0;
  if (v < 0 || v > UINT32_MAX) return -1;
  return kind == VT_STR ? v : v + 1;
}

/* The equality index of column `col` of the table, built on first use; NULL on OOM (*rc
** SQLITE_NOMEM) or when the values are too sparse for one (*rc SQLITE_OK): the scan filters
** then. */
static const vt_index *index_get(vt_vtab *v, int col, int *rc) {
  vt_index *ix = &v->index[col];
  const trak_tables *t = v->t;
  *rc = SQLITE_OK;
  if (ix->off && ix->generation == t->generation) return ix;
  free(ix->off), free(ix->rows);
  ix->off = ix->rows = NULL;
  ix->generation = t->generation;
  const vt_col *cd = &v->tbl->cols[col];
  const uint32_t *values = trak__vt_array(t, cd);
  size_t n = trak__vt_rows(t, v->tbl);
#define INDEX_KEY(x)                                                                               \
  ((size_t)index_key(cd->kind, cd->kind == VT_U32N && (x) == TRAK_NULL_U32, (int64_t)(x)))
  size_t max = 0;
  for (size_t r = 0; r < n; r++)
    if (INDEX_KEY(values[r]) > max) max = INDEX_KEY(values[r]);
  if (max > 4 * n + 1024) return NULL; /* keys far sparser than rows (large ids) */
  ix->nkeys = (uint32_t)max + 1;
  *rc = SQLITE_NOMEM;
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
  *rc = SQLITE_OK;
  return ix;
}

uint32_t trak__vt_scans_before_index = 3;

/* Whether an equality on column `col` (an indexed one whose index is not built) is answered by
** reading the column rather than by building its index: the first trak__vt_scans_before_index
** times in a generation of the tables. A one-off query then pays one pass over the column, not
** the index's three passes and new arrays (page faults on a big table); a join's inner lookups
** build the index after a few. Counts the scan. */
static int index_deferred(vt_vtab *v, int col) {
  vt_index *ix = &v->index[col];
  if (ix->off && ix->generation == v->t->generation) return 0;
  if (ix->scan_generation != v->t->generation)
    ix->scan_generation = v->t->generation, ix->scans = 0;
  if (ix->scans >= trak__vt_scans_before_index) return 0;
  ix->scans++;
  return 1;
}

/* The stored value an equality filter (`=` one value, or IS NULL) on 32-bit column kind `kind`
** matches in *raw; 0 when no stored value can. */
static int filter_raw(vt_kind kind, const vt_filter *f, uint32_t *raw) {
  if (f->want == 'n') {
    *raw = kind == VT_STR ? 0 : TRAK_NULL_U32;
    return kind != VT_U32;
  }
  if (f->lo < 0 || f->lo > UINT32_MAX) return 0;
  *raw = (uint32_t)f->lo;
  return !(kind == VT_U32N && *raw == TRAK_NULL_U32) && !(kind == VT_STR && !*raw);
}

/* Makes the rows of [c->lo, c->end) that pass the equality filters in `mask` (on 32-bit
** columns) the candidates, by reading the columns, and drops those filters. Returns an SQLite
** code. */
static int scan_equal(vt_cursor *c, uint32_t mask) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  uint32_t *rows = malloc(((size_t)(c->end - c->lo) + 1) * sizeof *rows);
  if (!rows) return SQLITE_NOMEM;
  size_t n = 0;
  int first = 1;
  for (int i = c->nfilters - 1; i >= 0; i--) {
    if (!(mask >> i & 1)) continue;
    vt_filter *f = &c->filters[i];
    const vt_col *cd = &v->tbl->cols[f->col];
    const uint32_t *values = trak__vt_array(v->t, cd);
    uint32_t raw = 0;
    int any = filter_raw(cd->kind, f, &raw);
    if (first) { /* branch-free: every row is written, the count moves on a match */
      for (uint32_t r = c->lo; any && r < c->end; r++)
        rows[n] = r, n += values[r] == raw;
    } else {
      size_t m = 0;
      for (size_t k = 0; any && k < n; k++)
        rows[m] = rows[k], m += values[rows[k]] == raw;
      n = m;
    }
    first = 0;
    c->filters[i] = c->filters[--c->nfilters]; /* no set or pattern: an equality */
  }
  c->owned = rows;
  c->list = rows, c->n = n;
  return SQLITE_OK;
}

/* The rows of index key `key` in *n; an empty list for keys the column never holds. */
static const uint32_t *index_rows(const vt_index *ix, int64_t key, size_t *n) {
  *n = 0;
  if (key < 0 || key >= ix->nkeys) return ix->rows;
  *n = ix->off[key + 1] - ix->off[key];
  return ix->rows + ix->off[key];
}

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

/* ---- planning -------------------------------------------------------------------------- */

/* The plan (idxStr) is two characters per constraint passed to xFilter, in argv order: the
** column ('A' + index) and the operator: = > g(>=) < l(<=) n(IS NULL) N(IS NOT NULL) s(IS)
** i(IN, every value at once) k(LIKE) b(GLOB); then '@' and L (LIMIT) or O (OFFSET). idxNum holds the PLAN_
** bits and the GROUP BY or ORDER BY column. */
#define PLAN_GROUPED 1  /* rows come grouped by column idxNum >> 8 */
#define PLAN_DESC 2     /* rows come in descending row order (PLAN_TOP: column values) */
#define PLAN_TOP 4      /* the first LIMIT + OFFSET rows in the order of column idxNum >> 8 */
#define PLAN_ROW_DESC 8 /* PLAN_TOP, PLAN_SORT: ties by descending row id */
#define PLAN_SORT 16    /* rows sorted by the terms in idxNum >> 8 (sort_decode) */

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
  case SQLITE_INDEX_CONSTRAINT_ISNULL:
    return 'n';
  case SQLITE_INDEX_CONSTRAINT_ISNOTNULL:
    return 'N';
  case SQLITE_INDEX_CONSTRAINT_IS:
    return 's';
  case SQLITE_INDEX_CONSTRAINT_LIKE:
    return 'k';
  case SQLITE_INDEX_CONSTRAINT_GLOB:
    return 'b';
  default:
    return 0;
  }
}

/* Whether ORDER BY is the row order (or its reverse, *desc): every term on a column that
** ascends with the row id, all in one direction; terms after the id itself do not matter. */
static int order_is_rows(const trak_tables *t, const vt_table *tbl, const sqlite3_index_info *info,
                         int *desc) {
  if (info->nOrderBy < 1) return 0;
  *desc = info->aOrderBy[0].desc;
  for (int i = 0; i < info->nOrderBy; i++) {
    int col = info->aOrderBy[i].iColumn;
    if (col < 0 || col >= tbl->ncols || info->aOrderBy[i].desc != *desc) return 0;
    if (!col_sorted(t, &tbl->cols[col])) return 0;
    if (tbl->cols[col].kind == VT_ID) break;
  }
  return 1;
}

/* Whether the cursor can give ORDER BY's first rows itself: one integral column, then maybe the
** id as the tie-breaker. */
static int top_order(const vt_table *tbl, const sqlite3_index_info *info) {
  if (info->nOrderBy < 1 || info->nOrderBy > 2) return 0;
  int c0 = info->aOrderBy[0].iColumn, c1 = info->nOrderBy > 1 ? info->aOrderBy[1].iColumn : -1;
  if (c0 < 0 || c0 >= tbl->ncols) return 0;
  vt_kind k = tbl->cols[c0].kind;
  if (!kind_filterable(k) || k == VT_STR) return 0;
  return info->nOrderBy == 1 || (c1 >= 0 && c1 < tbl->ncols && tbl->cols[c1].kind == VT_ID);
}

/* The idxNum bits of a full sort by ORDER BY's terms when the cursor can give it: up to
** VT_SORT_TERMS filterable columns that are no strings (6 bits each from bit 8: the column, then
** the direction), then maybe the id, which decides ties; 0 when it cannot. */
static int sort_encode(const vt_table *tbl, const sqlite3_index_info *info) {
  int bits = PLAN_SORT, nterms = 0;
  for (int i = 0; i < info->nOrderBy; i++) {
    int col = info->aOrderBy[i].iColumn;
    if (col < 0 || col >= tbl->ncols) return 0;
    vt_kind k = tbl->cols[col].kind;
    if (k == VT_ID) {
      if (info->aOrderBy[i].desc) bits |= PLAN_ROW_DESC;
      break;
    }
    if (!kind_filterable(k) || k == VT_STR || nterms == VT_SORT_TERMS) return 0;
    bits |= (col << 1 | info->aOrderBy[i].desc) << (8 + 6 * nterms++);
  }
  return nterms ? bits : 0;
}

/* The terms of sort_encode's `bits` in `terms`; returns how many. */
static int sort_decode(const vt_table *tbl, int bits, vt_sort_term *terms) {
  int n = 0;
  for (unsigned x = (unsigned)bits >> 8; x && n < VT_SORT_TERMS; x >>= 6, n++)
    terms[n].col = &tbl->cols[(x & 63) >> 1], terms[n].desc = x & 1;
  return n;
}

static int vt_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  const vt_table *tbl = ((vt_vtab *)vt)->tbl;
  const trak_tables *t = ((vt_vtab *)vt)->t;
  double n = (double)trak__vt_rows(t, tbl) + 1;
  double cost = n, rows = n;
  char plan[2 * VT_MAX_FILTERS + 5];
  int used = 0, unique = 0, lookup = 0; /* lookup: an id or index equality drives the scan */
  int limit = -1, offset = -1;          /* the LIMIT and OFFSET constraints */
  for (int i = 0; i < info->nConstraint && used < VT_MAX_FILTERS; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->usable && c->op == SQLITE_INDEX_CONSTRAINT_LIMIT) limit = i;
    if (c->usable && c->op == SQLITE_INDEX_CONSTRAINT_OFFSET) offset = i;
    if (!c->usable || c->iColumn < 0 || c->iColumn >= tbl->ncols) continue;
    const vt_col *col = &tbl->cols[c->iColumn];
    unsigned char op = op_char(c->op);
    if (!op || !kind_filterable(col->kind)) continue;
    int omit = 1, pattern = op == 'k' || op == 'b';
    if (pattern && col->kind != VT_STR) continue;
    if (col->kind == VT_STR) {
      /* Strings: equality by string id, in the BINARY collation. Exact when the value is a
      ** constant text; otherwise a superset (SQLite rechecks). LIKE, GLOB and the BINARY
      ** comparisons are evaluated by SQLite's own operators once per string id: exact. */
      const char *coll = sqlite3_vtab_collation(info, i);
      if (!pattern && op != 'n' && op != 'N' && coll && sqlite3_stricmp(coll, "BINARY")) continue;
      pattern |= op == '>' || op == 'g' || op == '<' || op == 'l';
      sqlite3_value *rhs = NULL;
      if (op == '=' || op == 's')
        omit = sqlite3_vtab_rhs_value(info, i, &rhs) == SQLITE_OK &&
               sqlite3_value_type(rhs) == SQLITE_TEXT;
    }
    int in = 0;
    if (op == '=' && omit && sqlite3_vtab_in(info, i, -1) &&
        (col->kind == VT_ID || col_indexed(col) || col_sorted(t, col))) {
      sqlite3_vtab_in(info, i, 1);
      in = 1, op = 'i';
    }
    plan[2 * used] = (char)('A' + c->iColumn);
    plan[2 * used + 1] = (char)op;
    info->aConstraintUsage[i].argvIndex = ++used;
    info->aConstraintUsage[i].omit = (unsigned char)omit;
    int eq = op == '=' || op == 's' || op == 'i';
    double c_cost = n, sel = 1; /* this constraint's cost as the driver; its selectivity */
    if (col->kind == VT_ID && eq)
      c_cost = in ? 10 : 1, sel = in ? 10 / n : 1 / n, unique |= !in;
    else if (col_sorted(t, col) && eq)
      c_cost = in ? 200 : 20, sel = (in ? 40 : 4) / n;
    else if (col_sorted(t, col) && op != 'n' && op != 'N')
      c_cost = n / 4, sel = 0.25;
    else if (col_indexed(col) && (eq || op == 'n'))
      c_cost = n / 10 + 10, sel = 0.1;
    else
      sel = eq ? 0.1 : pattern ? 0.25 : 0.5; /* a scan filter, cheaper than SQLite's check */
    if (c_cost < cost) cost = c_cost;
    rows *= sel;
    if (eq && col_indexed(col) && !col_sorted(t, col)) lookup = 1;
  }
  if (cost >= n && rows < n) cost = n * 0.9; /* filtered in C */
  /* Top-N only when the cursor applies every WHERE term itself: SQLite's checks after it would
  ** drop rows from the first LIMIT ones. Also over an equality's rows: SQLite offers LIMIT only
  ** to the one table of a query, never to an inner loop. */
  int desc = 0,
      top = !unique && limit >= 0 && !order_is_rows(t, tbl, info, &desc) && top_order(tbl, info);
  for (int i = 0; top && i < info->nConstraint; i++)
    if (i != limit && i != offset && !info->aConstraintUsage[i].omit) top = 0;
  for (int k = 0; top && k < 2; k++) { /* LIMIT, then OFFSET: SQLite still applies both */
    int i = k ? offset : limit;
    if (i < 0) continue;
    plan[2 * used] = '@';
    plan[2 * used + 1] = k ? 'O' : 'L';
    info->aConstraintUsage[i].argvIndex = ++used;
  }
  plan[2 * used] = 0;
  info->idxStr = sqlite3_mprintf("%s", plan);
  info->needToFreeIdxStr = 1;
  info->estimatedCost = top ? cost / 2 : cost;
  info->estimatedRows = (sqlite3_int64)(rows < 1 ? 1 : rows);
  if (unique) info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  /* GROUP BY one id or string column: rows only need equal values adjacent, which a counting
  ** sort of the matching rows gives without SQLite's sorter. Not for a lookup (the table is then
  ** an inner loop, its few rows are grouped already, and sorting per outer row costs a pass
  ** over the group keys each time). Ascending only: for `GROUP BY x ORDER BY x DESC` SQLite
  ** passes the GROUP BY with the ORDER BY's direction and takes the grouped rows as ordered. */
  int gcol = info->nOrderBy == 1 && !info->aOrderBy[0].desc ? info->aOrderBy[0].iColumn : -1;
  if (top) {
    info->idxNum = PLAN_TOP | (info->aOrderBy[0].desc ? PLAN_DESC : 0) |
                   (info->nOrderBy > 1 && info->aOrderBy[1].desc ? PLAN_ROW_DESC : 0) |
                   info->aOrderBy[0].iColumn << 8;
    info->orderByConsumed = 1;
  } else if (gcol >= 0 && gcol < tbl->ncols && !unique && !lookup &&
             sqlite3_vtab_distinct(info) == 1 && col_indexed(&tbl->cols[gcol]) &&
             !tbl->cols[gcol].sorted) {
    info->idxNum = PLAN_GROUPED | gcol << 8;
    info->orderByConsumed = 1;
  } else if (order_is_rows(t, tbl, info, &desc)) {
    info->idxNum = desc ? PLAN_DESC : 0;
    info->orderByConsumed = 1;
  } else if (!unique && !lookup && sqlite3_vtab_distinct(info) <= 1 &&
             (info->idxNum = sort_encode(tbl, info))) {
    /* Every row sorted by the cursor: keys read once per row and compared in C instead of
    ** SQLite's sorter records. Not for a lookup (an inner loop would sort per outer row). */
    info->orderByConsumed = 1;
  }
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
    free(c->filters[i].set), trak__vt_pattern_free(c->filters[i].pat);
  c->nfilters = 0;
  c->step = 0;
  c->rc = SQLITE_OK;
  free(c->owned);
  c->owned = NULL;
  c->list = NULL;
}

static int vt_close(sqlite3_vtab_cursor *cur) {
  cursor_reset((vt_cursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* First row in [lo, hi) whose sorted column value is >= v (or > v when `strict`). NULLs (a
** sorted column never holds one) would count as smallest. */
static uint32_t lower_bound(const trak_tables *t, const vt_col *c, uint32_t lo, uint32_t hi,
                            int64_t v, int strict) {
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int64_t x = INT64_MIN;
    trak__vt_value(t, c, mid, &x);
    if (strict ? x <= v : x < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Narrows the rows [*lo, *hi) to those whose value of sorted column `c` lies in [vlo, vhi]. */
static void sorted_range(const trak_tables *t, const vt_col *c, uint32_t *lo, uint32_t *hi,
                         int64_t vlo, int64_t vhi) {
  int64_t a = *lo, b = *hi;
  if (c->kind == VT_ID) { /* the value is the row */
    if (vlo > a) a = vlo;
    if (vhi < b - 1) b = vhi + 1;
    if (a > b) a = b;
  } else {
    a = lower_bound(t, c, (uint32_t)a, (uint32_t)b, vlo, 0);
    b = lower_bound(t, c, (uint32_t)a, (uint32_t)b, vhi, 1);
  }
  *lo = (uint32_t)a, *hi = (uint32_t)b;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Whether `row` passes filter `f`: 1 or 0, or a negative SQLite code (a pattern's failure). */
static int filter_match(const trak_tables *t, const vt_table *tbl, const vt_filter *f,
                        uint32_t row) {
  int64_t x = 0;
  int present = trak__vt_value(t, &tbl->cols[f->col], row, &x);
  switch (f->want) {
  case 'p':
    return present && trak__vt_pattern_match(f->pat, &t->strings, (uint32_t)x);
  case 'n':
    return !present;
  case 'N':
    return present;
  case 'r':
    return present && x >= f->lo && x <= f->hi;
  default: {
    if (!present) return 0;
    size_t a = 0, b = f->nset;
    while (a < b) {
      size_t m = a + (b - a) / 2;
      if (f->set[m] < x)
        a = m + 1;
      else
        b = m;
    }
    return a < f->nset && f->set[a] == x;
  }
  }
}

/* Moves to the first candidate at or after position `pos` that lies in [lo, end) and passes
** every filter. */
/* trak__vt_skip's loop for a plain row range with one filter on a stored column, a text
** pattern or a range on a 64-bit integer (the filter loop costs ~80 instructions a row, these
** under 10). Returns 0 when it does not apply. */
static int skip_one_filter(vt_cursor *c, const vt_vtab *v) {
  const vt_filter *f = &c->filters[0];
  const vt_col *cd = &v->tbl->cols[f->col];
  if (c->list || c->nfilters != 1 || cd->calc || !cd->off) return 0;
  const void *a = trak__vt_array(v->t, cd);
  size_t pos = c->pos, n = c->n;
  if (f->want == 'p' && cd->kind == VT_STR) {
    pos = trak__vt_pattern_scan(f->pat, &v->t->strings, a, c->lo, pos, n, c->desc, &c->rc);
  } else if (f->want == 'r' && (cd->kind == VT_I64 || (cd->kind == VT_I64N && a))) {
    const int64_t *x = a;
    int64_t flo = f->lo, fhi = f->hi;
    if (cd->kind == VT_I64N && flo == INT64_MIN) flo++; /* INT64_MIN is NULL there */
    for (; pos < n; pos++) {
      int64_t y = x[c->lo + (c->desc ? n - 1 - pos : pos)];
      if (y >= flo && y <= fhi) break;
    }
  } else {
    return 0;
  }
  c->pos = pos;
  if (pos < n) c->row = c->lo + (uint32_t)(c->desc ? n - 1 - pos : pos);
  return 1;
}

void trak__vt_skip(vt_cursor *c) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  if (skip_one_filter(c, v)) return;
  for (; c->pos < c->n; c->pos++) {
    size_t i = c->desc ? c->n - 1 - c->pos : c->pos;
    if (!c->list)
      c->row = c->lo + (uint32_t)i;
    else if ((c->row = c->list[i]) < c->lo || c->row >= c->end)
      continue;
    int ok = 1;
    for (int f = 0; f < c->nfilters && ok > 0; f++)
      ok = filter_match(v->t, v->tbl, &c->filters[f], c->row);
    if (ok < 0) {
      c->rc = -ok, c->pos = c->n;
      return;
    }
    if (ok) return;
  }
}

/* Reads the values of an IN constraint into a sorted set of distinct column values (string
** ids for strings: a text never interned matches nothing). Returns 0, or an SQLite code. */
static int in_set(const trak_tables *t, const vt_col *cd, sqlite3_value *list, vt_filter *f) {
  size_t cap = 16;
  f->set = malloc(cap * sizeof *f->set);
  if (!f->set) return SQLITE_NOMEM;
  sqlite3_value *val;
  for (int rc = sqlite3_vtab_in_first(list, &val); rc == SQLITE_OK;
       rc = sqlite3_vtab_in_next(list, &val)) {
    int64_t lo, hi;
    if (cd->kind == VT_STR) {
      if (sqlite3_value_type(val) != SQLITE_TEXT) continue;
      lo = trak__strpool_find(&t->strings, (const char *)sqlite3_value_text(val),
                              (size_t)sqlite3_value_bytes(val));
      if (!lo) continue;
    } else {
      int ok = value_range(val, '=', &lo, &hi);
      if (ok < 0) return SQLITE_NOMEM;
      if (!ok) continue;
    }
    if (f->nset == cap) {
      int64_t *grown = realloc(f->set, 2 * cap * sizeof *grown);
      if (!grown) return SQLITE_NOMEM;
      f->set = grown, cap *= 2;
    }
    f->set[f->nset++] = lo;
  }
  qsort(f->set, f->nset, sizeof *f->set, cmp_i64);
  size_t m = 0;
  for (size_t i = 0; i < f->nset; i++)
    if (!m || f->set[m - 1] != f->set[i]) f->set[m++] = f->set[i];
  f->nset = m;
  return SQLITE_OK;
}

/* Turns constraint (col, op, val) into a filter, or narrows [*lo, *hi) when the column is
** sorted. Returns 1, 0 when no row can match, or a negative SQLite code. */
static int add_constraint(vt_cursor *c, int col, unsigned char op, sqlite3_value *val, uint32_t *lo,
                          uint32_t *hi) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  const trak_tables *t = v->t;
  const vt_col *cd = &v->tbl->cols[col];
  vt_filter f = {col, 'r', 0, 0, NULL, 0, NULL};
  if (op == 's') op = sqlite3_value_type(val) == SQLITE_NULL ? 'n' : '=';
  if (op == 'n' || op == 'N') {
    f.want = op;
  } else if (cd->kind == VT_STR && op != '=' && op != 'i') { /* LIKE, GLOB, < <= > >= */
    if (sqlite3_value_type(val) == SQLITE_NULL) return 0;    /* x LIKE NULL is NULL */
    char *err = NULL;
    int rc = trak__vt_pattern_open(v->db, &t->strings, op, val, &f.pat, &err);
    if (rc) {
      sqlite3_free(v->base.zErrMsg);
      v->base.zErrMsg = err;
      return -rc;
    }
    f.want = 'p';
    for (int i = 0; i < c->nfilters; i++) /* one id lookup per row for a column's predicates */
      if (c->filters[i].want == 'p' && c->filters[i].col == col) {
        trak__vt_pattern_and(c->filters[i].pat, f.pat);
        return 1;
      }
  } else if (op == 'i') {
    int rc = in_set(t, cd, val, &f);
    if (rc) {
      free(f.set);
      return -rc;
    }
    f.want = 'i';
    if (!f.nset) {
      free(f.set);
      return 0;
    }
  } else if (cd->kind == VT_STR) {
    if (sqlite3_value_type(val) != SQLITE_TEXT) return 1; /* not omitted: SQLite compares */
    f.lo = f.hi = trak__strpool_find(&t->strings, (const char *)sqlite3_value_text(val),
                                     (size_t)sqlite3_value_bytes(val));
    if (!f.lo) return 0;
  } else {
    int ok = value_range(val, op, &f.lo, &f.hi);
    if (ok <= 0) return ok < 0 ? -SQLITE_NOMEM : 0;
    if (col_sorted(t, cd)) { /* a binary search instead of a filter */
      sorted_range(t, cd, lo, hi, f.lo, f.hi);
      return *lo < *hi;
    }
  }
  if (c->nfilters == VT_MAX_FILTERS) { /* the plan has at most as many constraints */
    free(f.set), trak__vt_pattern_free(f.pat);
    return -SQLITE_INTERNAL;
  }
  c->filters[c->nfilters++] = f;
  return 1;
}

/* Picks how the scan visits rows: the range [lo, end) or, when smaller, the rows of one
** filter's values (an equality or IN on the id, a sorted column or an indexed one). The chosen
** filter is then exact for every candidate and dropped. Returns an SQLite code. */
static int choose_driver(vt_cursor *c) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  const trak_tables *t = v->t;
  size_t best = c->end - c->lo;
  int pick = -1;
  uint32_t scan = 0; /* equalities answered by reading their columns (index_deferred) */
  for (int i = 0; i < c->nfilters && best > 1; i++) {
    const vt_filter *f = &c->filters[i];
    const vt_col *cd = &v->tbl->cols[f->col];
    size_t size = 0, m;
    if (f->want == 'i' && (cd->kind == VT_ID || col_sorted(t, cd))) {
      size = f->nset; /* rows per value of a sorted column: a guess */
    } else if (col_indexed(cd) &&
               (f->want == 'i' || f->want == 'n' || (f->want == 'r' && f->lo == f->hi))) {
      if (best < 64) continue; /* a short range: not worth an index */
      if (f->want != 'i' && !col_sorted(t, cd) && index_deferred(v, f->col)) {
        scan |= 1u << i;
        continue;
      }
      int rc;
      const vt_index *ix = index_get(v, f->col, &rc);
      if (!ix) {
        if (rc) return rc;
        continue;
      }
      if (f->want != 'i') index_rows(ix, index_key(cd->kind, f->want == 'n', f->lo), &size);
      for (size_t k = 0; f->want == 'i' && k < f->nset; k++)
        index_rows(ix, index_key(cd->kind, 0, f->set[k]), &m), size += m;
    } else
      continue;
    if (size < best) best = size, pick = i;
  }
  if (pick < 0) return scan ? scan_equal(c, scan) : SQLITE_OK;
  vt_filter *f = &c->filters[pick];
  const vt_col *cd = &v->tbl->cols[f->col];
  if (!col_indexed(cd) || col_sorted(t, cd)) { /* IN on the id or a sorted column */
    uint32_t *rows = NULL;
    size_t n = 0, cap = 0;
    for (size_t k = 0; k < f->nset; k++) {
      uint32_t a = c->lo, b = c->end;
      sorted_range(t, cd, &a, &b, f->set[k], f->set[k]);
      if (n + (b - a) > cap) {
        cap = (n + (b - a)) * 2;
        uint32_t *grown = realloc(rows, cap * sizeof *rows);
        if (!grown) return free(rows), SQLITE_NOMEM;
        rows = grown;
      }
      for (uint32_t r = a; r < b; r++)
        rows[n++] = r; /* ascending: the set is */
    }
    c->owned = rows;
    c->list = rows, c->n = n;
  } else { /* the rows of the value(s) in the column's index */
    int rc;
    const vt_index *ix = index_get(v, f->col, &rc); /* built above */
    if (!ix) return rc ? rc : SQLITE_INTERNAL;
    if (f->want != 'i') {
      int64_t key = index_key(cd->kind, f->want == 'n', f->lo);
      c->list = index_rows(ix, key, &c->n);
    } else {
      size_t n = 0, m;
      for (size_t k = 0; k < f->nset; k++)
        index_rows(ix, index_key(cd->kind, 0, f->set[k]), &m), n += m;
      uint32_t *rows = malloc((n ? n : 1) * sizeof *rows);
      if (!rows) return SQLITE_NOMEM;
      n = 0;
      for (size_t k = 0; k < f->nset; k++) {
        const uint32_t *r = index_rows(ix, index_key(cd->kind, 0, f->set[k]), &m);
        memcpy(rows + n, r, m * sizeof *rows), n += m;
      }
      qsort(rows, n, sizeof *rows, cmp_u32); /* distinct values: no row twice */
      c->owned = rows;
      c->list = rows, c->n = n;
    }
  }
  free(f->set), trak__vt_pattern_free(f->pat);
  c->filters[pick] = c->filters[--c->nfilters];
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
    ok = add_constraint(c, plan[2 * i] - 'A', (unsigned char)plan[2 * i + 1], argv[i], &lo, &hi);
  }
  if (ok < 0) return -ok;
  c->lo = lo, c->end = ok ? hi : lo;
  c->n = c->end - c->lo, c->pos = 0;
  c->desc = (idx & (PLAN_DESC | PLAN_TOP)) == PLAN_DESC;
  int rc = c->n ? choose_driver(c) : SQLITE_OK;
  if (rc) return rc;
  if (idx & PLAN_GROUPED) {
    rc = trak__vt_group(c, &v->tbl->cols[idx >> 8]);
  } else if (idx & PLAN_SORT) {
    vt_sort_term terms[VT_SORT_TERMS];
    rc = trak__vt_sort(c, terms, sort_decode(v->tbl, idx, terms), (idx & PLAN_ROW_DESC) != 0);
  } else if (idx & PLAN_TOP) {
    size_t k = limit < 0 || limit > INT64_MAX - offset ? SIZE_MAX : (size_t)(limit + offset);
    rc = trak__vt_top(c, &v->tbl->cols[idx >> 8], (idx & PLAN_DESC) != 0,
                      (idx & PLAN_ROW_DESC) != 0, k);
  } else
    trak__vt_skip(c);
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
  if (++c->pos < c->n && !c->nfilters) {
    c->row = c->list[c->desc ? c->n - 1 - c->pos : c->pos];
    if (c->row >= c->lo && c->row < c->end) return SQLITE_OK;
  }
  trak__vt_skip(c);
  return c->rc;
}

static int vt_eof(sqlite3_vtab_cursor *cur) {
  vt_cursor *c = (vt_cursor *)cur;
  return c->pos >= c->n;
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
  if (rc == SQLITE_OK) rc = trak__vt_row_count_register(db, t);
  for (size_t i = 0; rc == SQLITE_OK && trak__vt_table(i); i++) {
    char *sql =
        sqlite3_mprintf("CREATE VIRTUAL TABLE %s USING trak_columnar", trak__vt_table(i)->name);
    rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_free(sql);
  }
  return rc;
}
