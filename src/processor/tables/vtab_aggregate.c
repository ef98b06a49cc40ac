/*
** This file holds the aggregates of the columnar tables' columns computed in C, for statements
** that sql/perfetto_sql/column_aggregates.c recognises: an aggregate's spec (COUNT, SUM, MIN,
** MAX or AVG of a column) and its SQLite result, and __intrinsic_col_agg (one aggregate over
** every row); the same per value of a key column is vtab_group.c's. SQLite would step its VM
** and the virtual table once per row (400 to 1,000 instructions a row); a column read here
** costs tens.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "processor/tables/vtab_aggregate.h"

void trak__agg_add_real(agg_fn fn, double x, agg_acc *acc) {
  if (isnan(x)) return;
  if (fn == AGG_SUM || fn == AGG_AVG)
    acc->r += x;
  else if (fn != AGG_COUNT && (!acc->n || (fn == AGG_MIN ? x < acc->r : x > acc->r)))
    acc->r = x; /* ties keep the first, as SQLite's min() and max() do (-0.0 and 0.0) */
  acc->n++;
}

int trak__agg_spec_parse(const trak_tables *t, const vt_table *tbl, const char *fn, size_t fn_len,
                         const char *name, agg_spec *s) {
  static const char *const fns[] = {"count", "sum", "min", "max", "avg"};
  int f = -1;
  for (int i = 0; i < 5; i++)
    if (strlen(fns[i]) == fn_len && !memcmp(fn, fns[i], fn_len)) f = i;
  s->fn = (agg_fn)f;
  s->col = name && *name ? trak__vt_col_named(tbl, name) : NULL;
  s->a = s->col && s->col->off ? trak__vt_array(t, s->col) : NULL;
  s->real = s->col && s->col->kind == VT_F64 && !s->col->calc;
  return f < 0 || !tbl || (name && *name && !s->col) || (!s->col && f) ? -1 : 0;
}

void trak__agg_result(sqlite3_context *ctx, const agg_spec *s, const agg_acc *acc) {
  agg_fn fn = s->fn;
  if (fn == AGG_COUNT)
    sqlite3_result_int64(ctx, acc->n);
  else if (!acc->n)
    sqlite3_result_null(ctx);
  else if (fn == AGG_AVG)
    sqlite3_result_double(ctx, acc->r / (double)acc->n);
  else if (s->real)
    sqlite3_result_double(ctx, acc->r);
  else if (acc->overflow)
    sqlite3_result_error(ctx, "integer overflow", -1);
  else
    sqlite3_result_int64(ctx, acc->v);
}

/* ---- __intrinsic_col_agg(table, fn, column) ------------------------------------------------ */

static void col_agg_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const trak_tables *t = sqlite3_user_data(ctx);
  const vt_table *tbl = trak__vt_table_named((const char *)sqlite3_value_text(argv[0]));
  const char *fn = (const char *)sqlite3_value_text(argv[1]);
  const char *name = (const char *)sqlite3_value_text(argv[2]);
  agg_spec s;
  if (!fn || !name || !*name || trak__agg_spec_parse(t, tbl, fn, strlen(fn), name, &s)) {
    sqlite3_result_error(ctx, "__intrinsic_col_agg: no such columnar table, column or aggregate",
                         -1);
    return;
  }
  agg_acc acc = {0, 0, 0, 0};
  for (uint32_t row = 0, rows = (uint32_t)trak__vt_rows(t, tbl); row < rows; row++)
    acc_add(t, &s, row, &acc);
  trak__agg_result(ctx, &s, &acc);
}

int trak__vt_aggregates_register(sqlite3 *db, const trak_tables *t) {
  int rc = sqlite3_create_function(db, "__intrinsic_col_agg", 3, SQLITE_UTF8, (void *)t, col_agg_fn,
                                   NULL, NULL);
  if (rc == SQLITE_OK) rc = trak__vt_ts_floor_register(db, t);
  if (rc == SQLITE_OK) rc = trak__vt_group_register(db, t);
  return rc ? rc : trak__vt_top_register(db, t);
}
