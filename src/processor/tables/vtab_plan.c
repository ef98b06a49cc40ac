/*
** This file holds the trak_columnar module's planning (xBestIndex): which constraints SQLite
** passes to the cursor and which it may omit, what each costs as the scan's driver, and which
** GROUP BY or ORDER BY the cursor consumes (PLAN_ bits in idxNum, the constraints in idxStr).
*/
#include <string.h>

#include "processor/tables/vtab_scan.h"

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
    if (!vt_col_sorted(t, &tbl->cols[col])) return 0;
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
  if (!vt_kind_filterable(k) || k == VT_STR) return 0;
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
    if (!vt_kind_filterable(k) || k == VT_STR || nterms == VT_SORT_TERMS) return 0;
    bits |= (col << 1 | info->aOrderBy[i].desc) << (8 + 6 * nterms++);
  }
  return nterms ? bits : 0;
}

/* The terms of sort_encode's `bits` in `terms`; returns how many. */
int trak__vt_sort_decode(const vt_table *tbl, int bits, vt_sort_term *terms) {
  int n = 0;
  for (unsigned x = (unsigned)bits >> 8; x && n < VT_SORT_TERMS; x >>= 6, n++)
    terms[n].col = &tbl->cols[(x & 63) >> 1], terms[n].desc = x & 1;
  return n;
}

int trak__vt_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
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
    if (!op || !vt_kind_filterable(col->kind)) continue;
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
        (col->kind == VT_ID || vt_col_indexed(col) || vt_col_sorted(t, col))) {
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
    else if (vt_col_sorted(t, col) && eq)
      c_cost = in ? 200 : 20, sel = (in ? 40 : 4) / n;
    else if (vt_col_sorted(t, col) && op != 'n' && op != 'N')
      c_cost = n / 4, sel = 0.25;
    else if (vt_col_indexed(col) && (eq || op == 'n'))
      c_cost = n / 10 + 10, sel = 0.1;
    else
      sel = eq ? 0.1 : pattern ? 0.25 : 0.5; /* a scan filter, cheaper than SQLite's check */
    if (c_cost < cost) cost = c_cost;
    rows *= sel;
    if (eq && vt_col_indexed(col) && !vt_col_sorted(t, col)) lookup = 1;
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
             sqlite3_vtab_distinct(info) == 1 && vt_col_indexed(&tbl->cols[gcol]) &&
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
