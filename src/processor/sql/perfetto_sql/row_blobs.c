/*
** This file holds __trak_rows(v0, v1, ...), the aggregate that packs a table's rows of any SQL
** values into one BLOB, and the reader of such BLOBs. A macro hands a table to a C table
** function as `(SELECT __trak_rows(a, b) FROM $t)`: the aggregate runs in the caller's own
** statement, so $t may be one of its CTEs, which a query run apart (as SQL text) cannot see.
**
** The BLOB: a 4-byte column count, then the cells row after row, each a 1-byte SQLite type
** (SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL) and its payload: 8 bytes
** for a number, a 4-byte length and the bytes for TEXT and BLOB, nothing for NULL; native order.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

typedef struct rows_agg {
  unsigned char *v;
  size_t n, cap;
  int oom;
} rows_agg;

static int put(rows_agg *a, const void *p, size_t n) {
  if (a->n + n > a->cap) {
    size_t cap = a->cap ? a->cap : 256;
    while (cap < a->n + n)
      cap *= 2;
    unsigned char *v = realloc(a->v, cap);
    if (!v) return a->oom = 1, -1;
    a->v = v, a->cap = cap;
  }
  memcpy(a->v + a->n, p, n);
  a->n += n;
  return 0;
}

static void rows_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  rows_agg *a = sqlite3_aggregate_context(ctx, sizeof *a);
  if (!a) return sqlite3_result_error_nomem(ctx);
  if (argc < 1 || argc > TRAK_ROWS_MAX_COLS)
    return sqlite3_result_error(ctx, "__trak_rows: 1 to 64 arguments", -1);
  uint32_t ncols = (uint32_t)argc;
  if (!a->n && put(a, &ncols, 4)) return;
  for (int i = 0; i < argc && !a->oom; i++) {
    unsigned char type = (unsigned char)sqlite3_value_type(argv[i]);
    put(a, &type, 1);
    if (type == SQLITE_INTEGER) {
      int64_t x = sqlite3_value_int64(argv[i]);
      put(a, &x, 8);
    } else if (type == SQLITE_FLOAT) {
      double x = sqlite3_value_double(argv[i]);
      put(a, &x, 8);
    } else if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
      const void *p = type == SQLITE_TEXT ? (const void *)sqlite3_value_text(argv[i])
                                          : sqlite3_value_blob(argv[i]);
      uint32_t len = (uint32_t)sqlite3_value_bytes(argv[i]);
      if (!put(a, &len, 4) && len) put(a, p, len);
    }
  }
}

static void rows_final(sqlite3_context *ctx) {
  rows_agg *a = sqlite3_aggregate_context(ctx, 0);
  if (a && a->oom) {
    free(a->v);
    return sqlite3_result_error_nomem(ctx);
  }
  if (a && a->n) sqlite3_result_blob64(ctx, a->v, a->n, free);
  else sqlite3_result_null(ctx);
}

int trak__rows_open(sqlite3_value *blob, trak_rows_reader *r) {
  memset(r, 0, sizeof *r);
  int type = sqlite3_value_type(blob);
  if (type == SQLITE_NULL) return 0; /* the aggregate of no rows */
  if (type != SQLITE_BLOB) return -1;
  r->p = sqlite3_value_blob(blob);
  r->n = (size_t)sqlite3_value_bytes(blob);
  if (r->n < 4) return -1;
  memcpy(&r->ncols, r->p, 4);
  if (r->ncols < 1 || r->ncols > TRAK_ROWS_MAX_COLS) return -1;
  r->at = 4;
  return 0;
}

int trak__rows_next(trak_rows_reader *r, trak_cell *cells) {
  if (r->at >= r->n) return 0;
  for (uint32_t i = 0; i < r->ncols; i++) {
    trak_cell *c = &cells[i];
    if (r->at >= r->n) return -1;
    c->type = r->p[r->at++];
    size_t need = c->type == SQLITE_INTEGER || c->type == SQLITE_FLOAT ? 8
                  : c->type == SQLITE_TEXT || c->type == SQLITE_BLOB   ? 4
                                                                       : 0;
    if (c->type < SQLITE_INTEGER || c->type > SQLITE_NULL || r->n - r->at < need) return -1;
    if (c->type == SQLITE_INTEGER) memcpy(&c->i, r->p + r->at, 8);
    else if (c->type == SQLITE_FLOAT) memcpy(&c->d, r->p + r->at, 8);
    r->at += need;
    if (c->type == SQLITE_TEXT || c->type == SQLITE_BLOB) {
      memcpy(&c->len, r->p + r->at - 4, 4);
      if (r->n - r->at < c->len) return -1;
      c->bytes = r->p + r->at;
      r->at += c->len;
    }
  }
  return 1;
}

int64_t trak__cell_int(const trak_cell *c) {
  switch (c->type) {
  case SQLITE_INTEGER: return c->i;
  case SQLITE_FLOAT:
    return c->d >= -9223372036854775808.0 && c->d < 9223372036854775808.0 ? (int64_t)c->d : 0;
  case SQLITE_TEXT: {
    char buf[32];
    size_t n = c->len < sizeof buf - 1 ? c->len : sizeof buf - 1;
    memcpy(buf, c->bytes, n);
    buf[n] = 0;
    return strtoll(buf, NULL, 10);
  }
  default: return 0;
  }
}

void trak__cell_result(sqlite3_context *ctx, const trak_cell *c) {
  switch (c->type) {
  case SQLITE_INTEGER: sqlite3_result_int64(ctx, c->i); break;
  case SQLITE_FLOAT: sqlite3_result_double(ctx, c->d); break;
  case SQLITE_TEXT: sqlite3_result_text(ctx, (const char *)c->bytes, (int)c->len, SQLITE_TRANSIENT); break;
  case SQLITE_BLOB: sqlite3_result_blob(ctx, c->bytes, (int)c->len, SQLITE_TRANSIENT); break;
  default: sqlite3_result_null(ctx); break;
  }
}

int trak__psql_row_blobs_register(trak_processor *p) {
  return sqlite3_create_function(p->db, "__trak_rows", -1, SQLITE_UTF8, NULL, NULL, rows_step,
                                 rows_final);
}
