/*
** This file holds what SQLite sees of the columnar tables: each table's columns (a list of
** vt_col generated from table_defs.h), their declared types and how a value is read and turned
** into an SQLite result. vtab_plan.c plans and vtab_scan.c runs the scans over them.
*/
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "processor/tables/arg_value.h"
#include "processor/tables/sched_cols.h"
#include "processor/tables/thread_state_cols.h"
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

/* The columns SQL sees (every store but H), in the order of table_defs.h. */
#define VT_COL_S(T, type, field, sql, sorted)                                                      \
  {sql, DECL_##type, VT_##type, offsetof(trak_tables, T.field), sorted, VT_CALC_NONE},
#define VT_COL_O VT_COL_S
#define VT_COL_A VT_COL_S
#define VT_COL_V(T, type, field, sql, sorted)                                                      \
  {sql, DECL_##type, VT_##type, 0, sorted, VT_CALC_NONE},
#define VT_COL_H(T, type, field, sql, sorted)
#define VT_COL_C(T, type, field, sql, sorted)                                                      \
  {sql, DECL_##type " HIDDEN", VT_##type, 0, sorted, VT_CALC_##field},
#define VT_COL(T, store, type, field, sql, sorted, init) VT_COL_##store(T, type, field, sql, sorted)
#define VT_TABLE(T, sql)                                                                           \
  static const vt_col T##_cols[] = {TRAK_COLUMNS_##T(VT_COL, T)};                                  \
  _Static_assert(sizeof T##_cols / sizeof *T##_cols <= VT_MAX_COLS, #T " has too many columns");   \
  const vt_table trak__vt_##T = {sql, offsetof(trak_tables, T.n), T##_cols,                        \
                                 sizeof T##_cols / sizeof *T##_cols};
TRAK_TABLES(VT_TABLE)

#define VT_TABLE_REF(T, sql) &trak__vt_##T,
static const vt_table *const all_tables[] = {TRAK_TABLES(VT_TABLE_REF)};

const vt_table *trak__vt_table(size_t i) {
  return i < sizeof all_tables / sizeof *all_tables ? all_tables[i] : NULL;
}

/* ---- computed columns ------------------------------------------------------------------ */

/* The thread of slice `row`'s track when it is a thread track of an existing thread, else
** TRAK_NULL_U32. */
static uint32_t slice_utid(const trak_tables *t, uint32_t row) {
  uint32_t tr = t->slice.track_id[row];
  if (tr >= t->track.n || t->track.kind[tr] != TRAK_TRACK_THREAD) return TRAK_NULL_U32;
  uint32_t utid = t->track.utid[tr];
  return utid < t->thread.n ? utid : TRAK_NULL_U32;
}

/* The process of slice `row`: its thread's upid (which may name no process) on a thread
** track, the track's upid on a process track of an existing process, else TRAK_NULL_U32. */
static uint32_t slice_upid(const trak_tables *t, uint32_t row) {
  uint32_t tr = t->slice.track_id[row];
  if (tr >= t->track.n) return TRAK_NULL_U32;
  if (t->track.kind[tr] == TRAK_TRACK_PROCESS)
    return t->track.upid[tr] < t->process.n ? t->track.upid[tr] : TRAK_NULL_U32;
  uint32_t utid = slice_utid(t, row);
  return utid == TRAK_NULL_U32 ? TRAK_NULL_U32 : t->thread.upid[utid];
}

/* thread_state's computed columns are trak__ts_col's, in its order. */
#define TS_COL_AT(col, calc) _Static_assert(VT_CALC_##calc - VT_CALC_ts_dur == col, #calc)
TS_COL_AT(TRAK_TS_COL_IO_WAIT, ts_io_wait);
TS_COL_AT(TRAK_TS_COL_BLOCKED_FUNCTION, ts_blocked_function);
TS_COL_AT(TRAK_TS_COL_WAKER_UTID, ts_waker_utid);
TS_COL_AT(TRAK_TS_COL_WAKER_ID, ts_waker_id);
TS_COL_AT(TRAK_TS_COL_IRQ_CONTEXT, ts_irq_context);
TS_COL_AT(TRAK_TS_COL_UCPU, ts_ucpu);

/* The scheduling tables' computed columns: thread_state's packed ones (thread_state_cols.h),
** sched_slice's and ftrace_event's narrow ones; 0 when NULL, -1 for other tables' columns. */
static int thread_state_calc(const trak_tables *t, vt_calc calc, uint32_t row, int64_t *out) {
  if (calc >= VT_CALC_ts_dur && calc <= VT_CALC_ts_ucpu)
    return trak__ts_col(t, (trak_ts_col)(calc - VT_CALC_ts_dur), row, out);
  switch (calc) {
  case VT_CALC_ts_state:
    return (*out = trak__ts_state(t, row)) != 0;
  case VT_CALC_ss_end_state:
    return (*out = trak__ss_end_state(t, row)) != 0;
  case VT_CALC_ss_ucpu:
    return *out = trak__ss_ucpu(t, row), 1;
  case VT_CALC_ss_priority:
    return *out = trak__ss_priority(t, row), 1;
  case VT_CALC_fe_name:
    return (*out = trak__fe_name(t, row)) != 0;
  case VT_CALC_fe_ucpu:
    return *out = trak__fe_ucpu(t, row), 1;
  case VT_CALC_fe_common_flags:
    return *out = trak__fe_common_flags(t, row), 1;
  default:
    return -1;
  }
}

/* The dictionary columns: their trak_dict8 and code array in trak_tables, how a value reads. */
#define DICT_COL(calc, dict, codes, sign32, zero_null)                                             \
  {VT_CALC_##calc, offsetof(trak_tables, dict), offsetof(trak_tables, codes), sign32, zero_null}
static const struct {
  vt_calc calc;
  size_t dict, codes;
  unsigned char sign32, zero_null;
} dict_cols[] = {
    DICT_COL(ts_state, dict.ts_state, thread_state.state8, 0, 1),
    DICT_COL(ss_end_state, dict.ss_end_state, sched_slice.end_state8, 0, 1),
    DICT_COL(ss_ucpu, dict.ss_ucpu, sched_slice.ucpu8, 0, 0),
    DICT_COL(ss_priority, dict.ss_priority, sched_slice.priority8, 1, 0),
    DICT_COL(fe_name, dict.fe_name, ftrace_event.name8, 0, 1),
    DICT_COL(fe_ucpu, dict.fe_ucpu, ftrace_event.ucpu8, 0, 0),
    DICT_COL(fe_common_flags, dict.fe_flags, ftrace_event.flags8, 0, 0),
};

int trak__vt_dict(const trak_tables *t, vt_calc calc, vt_dict *out) {
  for (size_t i = 0; i < sizeof dict_cols / sizeof *dict_cols; i++)
    if (dict_cols[i].calc == calc) {
      const char *base = (const char *)t;
      out->dict = (const trak_dict8 *)(base + dict_cols[i].dict);
      out->codes = *(const uint8_t *const *)(base + dict_cols[i].codes);
      out->sign32 = dict_cols[i].sign32, out->zero_null = dict_cols[i].zero_null;
      return 1;
    }
  return 0;
}

int trak__vt_calc(const trak_tables *t, vt_calc calc, uint32_t row, int64_t *out) {
  uint32_t utid, upid;
  switch (calc) { /* the slice's first: they are read for every row of thread_slice */
  case VT_CALC_slice_utid:
    return (*out = slice_utid(t, row)) != TRAK_NULL_U32;
  case VT_CALC_slice_upid:
    return (*out = slice_upid(t, row)) != TRAK_NULL_U32;
  case VT_CALC_slice_track_name: {
    uint32_t tr = t->slice.track_id[row];
    return (*out = tr < t->track.n ? t->track.name[tr] : 0) != 0;
  }
  case VT_CALC_slice_thread_name:
    if ((utid = slice_utid(t, row)) == TRAK_NULL_U32) return 0;
    return (*out = t->thread.name[utid]) != 0;
  case VT_CALC_slice_tid:
    if ((utid = slice_utid(t, row)) == TRAK_NULL_U32) return 0;
    return *out = t->thread.tid[utid], 1;
  case VT_CALC_slice_is_main_thread:
    if ((utid = slice_utid(t, row)) == TRAK_NULL_U32) return 0;
    return (*out = t->thread.is_main[utid]) != 2;
  case VT_CALC_slice_process_name:
    if ((upid = slice_upid(t, row)) >= t->process.n) return 0;
    return (*out = t->process.name[upid]) != 0;
  case VT_CALC_slice_pid:
    if ((upid = slice_upid(t, row)) >= t->process.n) return 0;
    return *out = t->process.pid[upid], 1;
  default: /* VT_CALC_NONE reads as NULL */
    return thread_state_calc(t, calc, row, out) > 0;
  }
}

/* ---- column access --------------------------------------------------------------------- */

#define col_array trak__vt_array

static void arg_display(const trak_tables *t, uint32_t row, sqlite3_context *ctx) {
  char buf[64];
  int64_t v = trak__arg_int(t, row);
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
    sqlite3_snprintf(sizeof buf, buf, "%!.15g", trak__arg_real(t, row));
    break;
  case TRAK_ARG_STRING:
  case TRAK_ARG_JSON: {
    const char *s = trak__str(&t->strings, trak__arg_str(t, row));
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
  if (c->calc) {
    int64_t v;
    if (!trak__vt_calc(t, c->calc, row, &v))
      sqlite3_result_null(ctx);
    else if (c->kind == VT_STR)
      sqlite3_result_text(ctx, t->strings.str.v[v], (int)t->strings.len.v[v], SQLITE_STATIC);
    else
      sqlite3_result_int64(ctx, v);
    return;
  }
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
  case VT_ARG_INT: /* (the accessor's own type test is the same compare: folded into this one) */
    if (trak__arg_type_int(t->args.value_type[row]))
      sqlite3_result_int64(ctx, trak__arg_int(t, row));
    else
      sqlite3_result_null(ctx);
    return;
  case VT_ARG_STR: {
    /* trak__arg_str gives 0 for a row of another kind, which trak__str reads as NULL */
    const char *s = trak__str(&t->strings, trak__arg_str(t, row));
    if (s)
      sqlite3_result_text(ctx, s, -1, SQLITE_STATIC);
    else
      sqlite3_result_null(ctx);
    return;
  }
  case VT_ARG_REAL:
    if (t->args.value_type[row] == TRAK_ARG_REAL)
      sqlite3_result_double(ctx, trak__arg_real(t, row));
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

int trak__vt_plain_cols(const vt_table *tbl) {
  int n = 0;
  while (n < tbl->ncols && !tbl->cols[n].calc)
    n++;
  return n;
}

char *trak__vt_schema(const vt_table *tbl, const char *hidden) {
  char *s = sqlite3_mprintf("CREATE TABLE x(");
  for (int i = 0, n = hidden ? trak__vt_plain_cols(tbl) : tbl->ncols; i < n; i++) {
    char *next =
        sqlite3_mprintf("%s%s%s %s", s, i ? ", " : "", tbl->cols[i].name, tbl->cols[i].decl);
    sqlite3_free(s);
    s = next;
  }
  char *done = sqlite3_mprintf("%s%s%s)", s, hidden ? ", " : "", hidden ? hidden : "");
  sqlite3_free(s);
  return done;
}

/* ---- __intrinsic_row_count ------------------------------------------------------------- */

const vt_table *trak__vt_table_named(const char *name) {
  for (size_t i = 0; name && trak__vt_table(i); i++)
    if (!sqlite3_stricmp(trak__vt_table(i)->name, name)) return trak__vt_table(i);
  return NULL;
}

static void row_count_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const trak_tables *t = sqlite3_user_data(ctx);
  const vt_table *tbl = trak__vt_table_named((const char *)sqlite3_value_text(argv[0]));
  if (tbl)
    sqlite3_result_int64(ctx, (sqlite3_int64)trak__vt_rows(t, tbl));
  else
    sqlite3_result_error(ctx, "__intrinsic_row_count: no such columnar table", -1);
}

int trak__vt_row_count_register(sqlite3 *db, const trak_tables *t) {
  int rc = sqlite3_create_function(db, "__intrinsic_row_count", 1, SQLITE_UTF8, (void *)t,
                                   row_count_fn, NULL, NULL);
  return rc ? rc : trak__vt_aggregates_register(db, t);
}
