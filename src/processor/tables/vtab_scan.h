/*
** The state of the trak_columnar module shared by its files: the virtual table with its lazily
** built equality indexes, the cursor with its candidate rows and filters, the plan's encoding,
** and the read of a column's value as an integer. vtab_plan.c plans (xBestIndex), vtab_scan.c
** holds the module and its cursors, vtab_filter.c turns constraints into filters and steps the
** scan, vtab_index.c picks the scan's driver (an equality index, an IN list), vtab_order.c
** orders the rows the cursor gives when it consumes a GROUP BY or an ORDER BY.
*/
#ifndef TRAK_PROCESSOR_VTAB_SCAN_H
#define TRAK_PROCESSOR_VTAB_SCAN_H

#include "processor/tables/vtab.h"

#define VT_MAX_FILTERS 16

/* The plan (idxStr) is two characters per constraint passed to xFilter, in argv order: the
** column ('A' + index) and the operator: = > g(>=) < l(<=) n(IS NULL) N(IS NOT NULL) s(IS)
** i(IN, every value at once) k(LIKE) b(GLOB); then '@' and L (LIMIT) or O (OFFSET). idxNum
** holds the PLAN_ bits and the GROUP BY or ORDER BY column. */
#define PLAN_GROUPED 1  /* rows come grouped by column idxNum >> 8 */
#define PLAN_DESC 2     /* rows come in descending row order (PLAN_TOP: column values) */
#define PLAN_TOP 4      /* the first LIMIT + OFFSET rows in the order of column idxNum >> 8 */
#define PLAN_ROW_DESC 8 /* PLAN_TOP, PLAN_SORT: ties by descending row id */
#define PLAN_SORT 16    /* rows sorted by the terms in idxNum >> 8 (trak__vt_sort_decode) */

/* Whether the cursor can compare column kind `k` itself (as an integer, NULL aside). */
static inline int vt_kind_filterable(vt_kind k) {
  return k == VT_ID || k == VT_I64 || k == VT_I64N || k == VT_U32 || k == VT_U32N || k == VT_STR ||
         k == VT_BOOLN;
}

/* Whether column `c` gets an equality index (32-bit stored values). */
static inline int vt_col_indexed(const vt_col *c) {
  return !c->calc && (c->kind == VT_U32 || c->kind == VT_U32N || c->kind == VT_STR);
}

/* Whether `c`'s values ascend with the row index now: rows appended after the import
** (annotations) keep ids in order but not timestamps. */
static inline int vt_col_sorted(const trak_tables *t, const vt_col *c) {
  return c->sorted && (c->kind == VT_ID || !t->generation);
}

/* An equality index of one column, built on first use: the rows of each value in row order.
** Keys are the column's value + 1, with 0 for NULL (string ids are used as they are). */
typedef struct vt_index {
  uint32_t *off; /* nkeys + 1 offsets into rows */
  uint32_t *rows;
  uint32_t nkeys;
  uint32_t generation;      /* of the tables when built */
  uint32_t scans;           /* equality scans of the column without the index, in: */
  uint32_t scan_generation; /* this generation of the tables */
} vt_index;

typedef struct vt_vtab {
  sqlite3_vtab base;
  sqlite3 *db; /* the connection (LIKE and GLOB filters run SQLite's operators on it) */
  const trak_tables *t;
  const vt_table *tbl;
  vt_index index[VT_MAX_COLS];
} vt_vtab;

/* A LIKE, GLOB or comparison with a value, matched against string ids (vtab_match.c). */
typedef struct vt_pattern vt_pattern;

/* A filter `extract_arg(column, key) op literal` on an arg set id column (vtab_args.c). */
typedef struct vt_argterm vt_argterm;

/* Makes the filter of `extract_arg(column, key) op literal` (op one of = > g < l) over the arg
** sets of `t`: key and literal are the values SQLite evaluated, the literal an integer, real,
** text or NULL (a comparison with NULL: nothing passes), compared as SQLite compares two values
** without affinity. Returns an SQLite code (SQLITE_ERROR for another operator or a blob); the
** caller frees *out with trak__vt_argterm_free. */
int trak__vt_argterm_open(const trak_tables *t, unsigned char op, sqlite3_value *key,
                          sqlite3_value *literal, vt_argterm **out);
/* Whether a row whose column holds arg set `set` (NULL when not `present`) passes `a`: 1 or 0,
** remembered per set, or -SQLITE_NOMEM. */
int trak__vt_argterm_match(vt_argterm *a, const trak_tables *t, int present, int64_t set);
/* The batch scan of a 32-bit arg set id column `sets` (TRAK_NULL_U32 for NULL) filtered by `a`
** alone, as trak__vt_pattern_batch scans string ids. */
size_t trak__vt_argterm_batch(vt_argterm *a, const trak_tables *t, const uint32_t *sets,
                              uint32_t lo, size_t *pos, size_t n, uint32_t *rows, size_t cap,
                              int *rc);
/* Frees `a` (NULL too). */
void trak__vt_argterm_free(vt_argterm *a);

/* One constraint the cursor checks: the column's value NULL, not NULL, in [lo, hi], one of
** a sorted set, or a string matching a LIKE or GLOB pattern. */
typedef struct vt_filter {
  int col;
  unsigned char
      want; /* 'n' NULL, 'N' not NULL, 'r' in [lo, hi], 'i' in set, 'p' pattern or text range,
            ** 'a' an arg of the set compared */
  int64_t lo, hi;
  int64_t *set; /* 'i': nset distinct values, ascending */
  size_t nset;
  vt_pattern *pat; /* 'p' */
  vt_argterm *arg; /* 'a': extract_arg(column, key) op literal */
  vt_dict dict;    /* a dictionary column's (codes NULL for others): rows read by code_ok */
  uint8_t code_ok[TRAK_DICT8_WIDE + 1]; /* whether the value of each code passes; 1 for
                                        ** TRAK_DICT8_WIDE: such a row is checked by its value */
} vt_filter;

typedef struct vt_cursor {
  sqlite3_vtab_cursor base;
  uint32_t row;         /* the current row */
  uint32_t lo, end;     /* rows must lie in [lo, end) (sorted columns) */
  const uint32_t *list; /* candidate rows in row order (an index's, or `owned`), or NULL: lo.. */
  size_t n, pos;        /* candidates and the current one's position */
  int desc;             /* candidates visited last first */
  int step;             /* +1 or -1: every row of [lo, end) in turn (no filter, no list); 0 */
  vt_filter filters[VT_MAX_FILTERS];
  int nfilters;
  uint32_t *owned; /* candidate rows this cursor allocated */
  int rc;          /* an SQLite code from a filter that failed mid-scan (the scan then ends) */
  /* Read-ahead of a filtered scan (vtab_scan.c): the next rows that pass, found in batches so
  ** that the columns SQLite reads of them are fetched from memory ahead of their turn. */
  uint32_t *ahead; /* NULL: the cursor steps itself */
  size_t nahead, iahead;
  int ahead_rc;  /* a filter's failure after the batch's rows, to report after them */
  uint64_t used; /* the columns (below 64) SQLite has read through this cursor */
} vt_cursor;

/* The value of a filterable column at `row` in *out; returns 0 when it is NULL. */
static inline int trak__vt_value(const trak_tables *t, const vt_col *c, uint32_t row,
                                 int64_t *out) {
  if (c->calc) return trak__vt_calc(t, c->calc, row, out);
  const void *a = c->off ? trak__vt_array(t, c) : NULL;
  switch (c->kind) {
  case VT_ID:
    *out = row;
    return 1;
  case VT_I64:
    *out = ((const int64_t *)a)[row];
    return 1;
  case VT_I64N:
    if (!a) return 0; /* an optional column the trace has no data for */
    *out = ((const int64_t *)a)[row];
    return *out != INT64_MIN;
  case VT_U32:
    *out = ((const uint32_t *)a)[row];
    return 1;
  case VT_U32N:
    *out = ((const uint32_t *)a)[row];
    return *out != TRAK_NULL_U32;
  case VT_STR:
    *out = ((const uint32_t *)a)[row];
    return *out != 0;
  case VT_BOOLN:
    *out = ((const uint8_t *)a)[row];
    return *out != 2;
  default:
    return 0;
  }
}

/* Prepares the match of string ids of `sp` against `value` (any value) as SQL's `x LIKE value`
** (op 'k'), `x GLOB value` ('b') or `x > value` ('>', 'g' >=, '<', 'l' <=) on a TEXT column x
** in the BINARY collation, run by `db`. Returns an SQLite code: on error *out is NULL and *err
** an sqlite3_malloc'ed message. The caller frees *out with trak__vt_pattern_free (NULL too). */
int trak__vt_pattern_open(sqlite3 *db, const trak_strpool *sp, unsigned char op,
                          sqlite3_value *value, vt_pattern **out, char **err);
/* Makes `q` (owned from now on by `p`) a further condition of `p`: p matches an id when every
** predicate chained to it does (answers remembered before are forgotten). Can't fail. */
void trak__vt_pattern_and(vt_pattern *p, vt_pattern *q);
/* Whether string `id` (not 0) of `sp` matches: 1 or 0, remembered per id; a negative SQLite
** code on failure. */
int trak__vt_pattern_match(vt_pattern *p, const trak_strpool *sp, uint32_t id);
/* The scan of one string column filtered by `p` alone: the first position in [pos, n) whose
** row (lo + pos, or lo + n - 1 - pos when `desc`) has a string id in `ids` that matches (not
** NULL); n when none does, also on an error, which sets *rc to an SQLite code. */
size_t trak__vt_pattern_scan(vt_pattern *p, const trak_strpool *sp, const uint32_t *ids,
                             uint32_t lo, size_t pos, size_t n, int desc, int *rc);
/* trak__vt_pattern_scan's batch form: appends to `rows` (at most `cap`) every row lo + pos, pos
** from *pos up to n in ascending order, whose string id in `ids` matches (not NULL), and leaves
** *pos after the last one read. Returns how many rows it appended; an error sets *rc to an
** SQLite code and *pos to n. */
size_t trak__vt_pattern_batch(vt_pattern *p, const trak_strpool *sp, const uint32_t *ids,
                              uint32_t lo, size_t *pos, size_t n, uint32_t *rows, size_t cap,
                              int *rc);
/* Frees `p` and the predicates chained to it. */
void trak__vt_pattern_free(vt_pattern *p);

/* Frees what filter `f` holds (an IN set, a pattern, an arg term), not `f`. Can't fail. */
void trak__vt_filter_free(vt_filter *f);

/* Makes `extract_arg(column col, key) op literal` a filter of cursor `c` (trak__vt_argterm_open).
** Returns 1, 0 when no row can pass, or a negative SQLite code. */
int trak__vt_add_arg_constraint(vt_cursor *c, int col, unsigned char op, sqlite3_value *key,
                                sqlite3_value *literal);

/* Moves cursor `c` to the first candidate at or after its position `pos` that lies in
** [lo, end) and passes every filter (pos == n when none does; also when a filter fails,
** which sets c->rc). */
void trak__vt_skip(vt_cursor *c);

/* The next rows cursor `c` gives, up to `cap` of them, into `rows` in the order trak__vt_skip
** and pos++ would give them, the cursor left after the last; fewer than `cap` only at the end
** (or when a filter fails, which sets c->rc). A tight loop for a plain row range with no filter,
** one text pattern or one range on a 64-bit column; else trak__vt_skip per row. */
size_t trak__vt_skip_batch(vt_cursor *c, uint32_t *rows, size_t cap);

/* GROUP BY mode: collects the rows the cursor would give and makes it give them again with
** equal values of `col` (a 32-bit column: id, index or string) adjacent, groups in SQLite's sort
** order. Returns an SQLite code. */
int trak__vt_group(vt_cursor *c, const vt_col *col);

/* ORDER BY ... LIMIT mode: makes cursor `c` give the first `k` of the rows it would give, in
** the order of column `col` (a filterable one; NULL first ascending) descending when `desc`,
** ties by row id descending when `row_desc`. Returns an SQLite code. */
int trak__vt_top(vt_cursor *c, const vt_col *col, int desc, int row_desc, size_t k);

/* ORDER BY mode: one term of the order, a filterable column that is no string. */
#define VT_SORT_TERMS 3 /* the most terms before the id (which ends any order: ids are unique) */
typedef struct vt_sort_term {
  const vt_col *col;
  int desc;
} vt_sort_term;

/* Makes cursor `c` give every row it would give in the order of `terms` (nterms of them, at
** most VT_SORT_TERMS; NULL first ascending, as SQLite orders), ties by row id (descending when
** `row_desc`). Returns an SQLite code. */
int trak__vt_sort(vt_cursor *c, const vt_sort_term *terms, int nterms, int row_desc);

/* xBestIndex of the trak_columnar module (vtab_plan.c). Can't fail but for OOM (SQLITE_NOMEM
** is then SQLite's to report through idxStr being NULL). */
int trak__vt_best_index(sqlite3_vtab *vt, sqlite3_index_info *info);

/* The sort terms of a PLAN_SORT idxNum `bits` in `terms`; returns how many. */
int trak__vt_sort_decode(const vt_table *tbl, int bits, vt_sort_term *terms);

/* Turns constraint (col, op, val) of the plan into a filter of cursor `c`, or narrows the rows
** [*lo, *hi) when the column is sorted (vtab_filter.c). Returns 1, 0 when no row can match, or
** a negative SQLite code (a pattern's error message is then the vtab's zErrMsg). */
int trak__vt_add_constraint(vt_cursor *c, int col, unsigned char op, sqlite3_value *val,
                            uint32_t *lo, uint32_t *hi);

/* Narrows the rows [*lo, *hi) to those whose value of sorted column `c` lies in [vlo, vhi]
** (binary searches; the id column directly). Can't fail. */
void trak__vt_sorted_range(const trak_tables *t, const vt_col *c, uint32_t *lo, uint32_t *hi,
                           int64_t vlo, int64_t vhi);

/* Picks how cursor `c` visits rows (vtab_index.c): its range [lo, end) or, when smaller, the
** rows of one filter's values (an equality or IN on the id, a sorted column or an indexed one),
** which filter is then dropped. Returns an SQLite code; on error the cursor keeps its range. */
int trak__vt_choose_driver(vt_cursor *c);

#endif /* TRAK_PROCESSOR_VTAB_SCAN_H */
