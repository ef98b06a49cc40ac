/*
** This file holds the prelude's window functions: LAST_NON_NULL(x) and FIRST_NON_NULL(x), the
** last (first) non-NULL value of x in the window frame, for carrying a value forward over rows
** that lack it; and INTERNAL_LAYOUT(ts, dur), the depth at which an interval stacks when rows
** come in ts order and each takes the lowest depth free at its start (dur -1: never ends), as
** Perfetto lays out slices of a track. SQLite calls xStep for a row entering the frame and
** xInverse for the oldest row leaving it.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

/* ---- LAST_NON_NULL / FIRST_NON_NULL ------------------------------------------------------- */

/* The non-NULL values of the frame in row order, each with the number of its row, so that a row
** leaving the frame (always the oldest) drops its value if it had one. */
typedef struct frame_values {
  sqlite3_value **vals;
  sqlite3_int64 *rows;
  size_t head, tail, cap;
  sqlite3_int64 added, removed; /* rows that entered and left the frame */
  int oom;
} frame_values;

static frame_values *frame(sqlite3_context *ctx) {
  return sqlite3_aggregate_context(ctx, sizeof(frame_values));
}

static void nn_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  frame_values *f = frame(ctx);
  if (!f) return sqlite3_result_error_nomem(ctx);
  sqlite3_int64 row = f->added++;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  if (f->tail == f->cap) {
    if (f->head > 0) { /* slide the live part to the front before growing */
      memmove(f->vals, f->vals + f->head, (f->tail - f->head) * sizeof *f->vals);
      memmove(f->rows, f->rows + f->head, (f->tail - f->head) * sizeof *f->rows);
      f->tail -= f->head;
      f->head = 0;
    }
    if (f->tail == f->cap) {
      size_t cap = f->cap ? f->cap * 2 : 16;
      sqlite3_value **v = realloc(f->vals, cap * sizeof *v);
      if (v) f->vals = v;
      sqlite3_int64 *r = v ? realloc(f->rows, cap * sizeof *r) : NULL;
      if (r) f->rows = r;
      if (!v || !r) return sqlite3_result_error_nomem(ctx);
      f->cap = cap;
    }
  }
  sqlite3_value *copy = sqlite3_value_dup(argv[0]);
  if (!copy) return sqlite3_result_error_nomem(ctx);
  f->vals[f->tail] = copy;
  f->rows[f->tail++] = row;
}

static void nn_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc, (void)argv;
  frame_values *f = frame(ctx);
  if (!f) return;
  sqlite3_int64 row = f->removed++;
  if (f->head < f->tail && f->rows[f->head] == row) sqlite3_value_free(f->vals[f->head++]);
}

static void last_value(sqlite3_context *ctx) {
  frame_values *f = frame(ctx);
  if (f && f->head < f->tail) sqlite3_result_value(ctx, f->vals[f->tail - 1]);
}

static void first_value(sqlite3_context *ctx) {
  frame_values *f = frame(ctx);
  if (f && f->head < f->tail) sqlite3_result_value(ctx, f->vals[f->head]);
}

static void nn_free(frame_values *f) {
  for (size_t i = f->head; i < f->tail; i++)
    sqlite3_value_free(f->vals[i]);
  free(f->vals);
  free(f->rows);
}

static void last_final(sqlite3_context *ctx) {
  frame_values *f = sqlite3_aggregate_context(ctx, 0);
  if (!f) return;
  last_value(ctx);
  nn_free(f);
}

static void first_final(sqlite3_context *ctx) {
  frame_values *f = sqlite3_aggregate_context(ctx, 0);
  if (!f) return;
  first_value(ctx);
  nn_free(f);
}

/* ---- INTERNAL_LAYOUT ---------------------------------------------------------------------- */

/* The end of the interval at each depth (INT64_MAX: never ends) and the depth of the last row. */
typedef struct layout {
  sqlite3_int64 *ends;
  size_t n;
  sqlite3_int64 depth;
} layout;

static void layout_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  layout *l = sqlite3_aggregate_context(ctx, sizeof *l);
  if (!l) return sqlite3_result_error_nomem(ctx);
  sqlite3_int64 ts = sqlite3_value_int64(argv[0]), dur = sqlite3_value_int64(argv[1]);
  sqlite3_int64 end = dur < 0 ? INT64_MAX : ts + dur;
  size_t d = 0;
  while (d < l->n && l->ends[d] > ts)
    d++;
  if (d == l->n) {
    sqlite3_int64 *e = realloc(l->ends, (l->n + 1) * sizeof *e);
    if (!e) return sqlite3_result_error_nomem(ctx);
    l->ends = e;
    l->n++;
  }
  l->ends[d] = end;
  l->depth = (sqlite3_int64)d;
}

static void layout_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc, (void)argv;
  sqlite3_result_error(ctx,
                       "INTERNAL_LAYOUT: the frame must be ROWS BETWEEN UNBOUNDED PRECEDING AND "
                       "CURRENT ROW",
                       -1);
}

static void layout_value(sqlite3_context *ctx) {
  layout *l = sqlite3_aggregate_context(ctx, 0);
  sqlite3_result_int64(ctx, l ? l->depth : 0);
}

static void layout_final(sqlite3_context *ctx) {
  layout *l = sqlite3_aggregate_context(ctx, 0);
  sqlite3_result_int64(ctx, l ? l->depth : 0);
  if (l) free(l->ends);
}

int trak__psql_window_functions_register(sqlite3 *db) {
  int rc = sqlite3_create_window_function(db, "LAST_NON_NULL", 1, SQLITE_UTF8, NULL, nn_step,
                                          last_final, last_value, nn_inverse, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_window_function(db, "FIRST_NON_NULL", 1, SQLITE_UTF8, NULL, nn_step,
                                        first_final, first_value, nn_inverse, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_window_function(db, "INTERNAL_LAYOUT", 2, SQLITE_UTF8, NULL, layout_step,
                                        layout_final, layout_value, layout_inverse, NULL);
  return rc;
}
