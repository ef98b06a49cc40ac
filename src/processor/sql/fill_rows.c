/*
** This file holds the one loop that copies importer rows into a plain SQLite table (fill_rows.h).
*/
#include "processor/sql/fill_rows.h"

int trak__sql_fill_rows(sqlite3 *db, const char *sql, size_t n, trak_sql_bind_row_fn bind,
                        const void *ctx) {
  if (!n) return SQLITE_OK;
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
    sqlite3_bind_int64(st, 1, (int64_t)i);
    bind(st, ctx, i);
    rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}
