/*
** The interface between the files that aggregate the columnar tables' columns in C:
** vtab_aggregate.c (an aggregate's spec and result, and __intrinsic_col_agg over every row),
** vtab_group.c (the table-valued function __intrinsic_col_group, the same per key value) and
** vtab_ts_floor.c (__intrinsic_ts_floor). The per-row step, acc_add, is here, inline: the first
** two call it once per row.
*/
#ifndef TRAK_TABLES_VTAB_AGGREGATE_H
#define TRAK_TABLES_VTAB_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "processor/tables/vtab.h"

typedef enum agg_fn { AGG_COUNT, AGG_SUM, AGG_MIN, AGG_MAX, AGG_AVG } agg_fn;

/* One aggregate: its function and column (NULL: COUNT(*)) with the column's array. */
typedef struct agg_spec {
  agg_fn fn;
  const vt_col *col;
  const void *a;
  int real; /* the column holds reals (a stored F64 column) */
} agg_spec;

/* An aggregate's state: the sum, least or greatest value (v for integers, r for reals), the
** values seen, a sum's overflow; an average's sum is r, as SQLite 3.40's avg() adds each value
** converted to a double, in row order. */
typedef struct agg_acc {
  int64_t v, n;
  double r;
  int overflow;
} agg_acc;

/* Adds real `x` of a row to `acc` as aggregate `fn` adds it (NaN is NULL, as SQLite reads it).
** Out of line (vtab_aggregate.c): inlined into acc_add, it grows the per-row loops of integer
** columns too (about 1% more instructions in __intrinsic_col_group's). */
void trak__agg_add_real(agg_fn fn, double x, agg_acc *acc);

/* Adds row `row` to `acc` as aggregate `s` adds it. */
static inline void acc_add(const trak_tables *t, const agg_spec *s, uint32_t row, agg_acc *acc) {
  int64_t v = 0;
  if (s->real) {
    if (s->a) trak__agg_add_real(s->fn, ((const double *)s->a)[row], acc);
    return;
  }
  if (s->col && !trak__vt_int(t, s->col, s->a, row, &v)) return;
  if (s->fn == AGG_AVG)
    acc->r += (double)v;
  else if (s->fn == AGG_SUM)
    acc->overflow |= __builtin_add_overflow(acc->v, v, &acc->v);
  else if (s->fn != AGG_COUNT && (!acc->n || (s->fn == AGG_MIN ? v < acc->v : v > acc->v)))
    acc->v = v;
  acc->n++;
}

/* Sets *s to aggregate `fn` ("count", "sum", "min", "max", "avg"; fn_len bytes) of column
** `name` of `tbl` (an empty or NULL name: COUNT(*)). Returns 0, or -1 for an unknown function
** or column (or a NULL `tbl`); *s is then not to be used. */
int trak__agg_spec_parse(const trak_tables *t, const vt_table *tbl, const char *fn, size_t fn_len,
                         const char *name, agg_spec *s);
/* Sets the SQLite result to the value of `acc` of aggregate `s` (SQLite's: NULL for no values
** but a count; a real for an average and for anything of a real column; SQLite's "integer
** overflow" error for an integer sum past 64 bits). */
void trak__agg_result(sqlite3_context *ctx, const agg_spec *s, const agg_acc *acc);

/* Registers on `db` the table-valued function __intrinsic_col_group over `t` (vtab_group.c; see
** trak__vt_aggregates_register). Returns an SQLite code. */
int trak__vt_group_register(sqlite3 *db, const trak_tables *t);
/* Registers on `db` the SQL function __intrinsic_ts_floor(name, x) over `t` (vtab_ts_floor.c;
** see vtab.h). Returns an SQLite code. */
int trak__vt_ts_floor_register(sqlite3 *db, const trak_tables *t);

#endif
