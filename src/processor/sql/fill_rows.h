/*
** Rows copied from the importer's arrays into a plain SQLite table: one prepared INSERT whose
** ?1 is the row's index and whose other parameters a callback binds, and the binders of values
** that may be NULL. Used by the small tables the SQL layer fills when it opens (stats, import
** logs, diagnostics, logs, packages, the stack profile tables).
*/
#ifndef TRAK_PROCESSOR_SQL_FILL_ROWS_H
#define TRAK_PROCESSOR_SQL_FILL_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "processor/tables/storage.h"
#include <sqlite3.h>

/* Binds row `i` of `ctx`'s array to `st`'s parameters from ?2 on. */
typedef void (*trak_sql_bind_row_fn)(sqlite3_stmt *st, const void *ctx, size_t i);

/* Prepares `sql` on `db`, then for each of `n` rows binds ?1 to its index, calls `bind` and
** steps. Returns SQLITE_OK (nothing done when n is 0) or the first error. */
int trak__sql_fill_rows(sqlite3 *db, const char *sql, size_t n, trak_sql_bind_row_fn bind,
                        const void *ctx);

/* Binds `v`, or NULL when it is TRAK_NULL_U32. */
static inline void trak__sql_bind_u32(sqlite3_stmt *st, int col, uint32_t v) {
  if (v == TRAK_NULL_U32)
    sqlite3_bind_null(st, col);
  else
    sqlite3_bind_int64(st, col, v);
}

/* Binds string `id` of `pool` (static: the pool outlives the statement), or NULL for id 0. */
static inline void trak__sql_bind_str(sqlite3_stmt *st, int col, const trak_strpool *pool,
                                      uint32_t id) {
  if (id)
    sqlite3_bind_text(st, col, pool->str.v[id], (int)pool->len.v[id], SQLITE_STATIC);
  else
    sqlite3_bind_null(st, col);
}

#endif /* TRAK_PROCESSOR_SQL_FILL_ROWS_H */
