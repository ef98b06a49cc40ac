/*
** Columnar fetch of query results (trak_query_fetch_columns): steps a statement for a batch of
** rows and lays each column out as one typed array, strings as codes into a per-column
** dictionary that lives as long as the query.
*/
#ifndef TRAK_PROCESSOR_COLUMN_FETCH_H
#define TRAK_PROCESSOR_COLUMN_FETCH_H

#include <sqlite3.h>

#include "trak/processor.h"

typedef struct trak__columns trak__columns;

/* Fetches up to `max_rows` rows of `stmt` into `out` (one entry per result column). *state is
** created on the first call (NULL before) and freed with trak__columns_free. Returns the rows
** fetched, 0 when done, TRAK_EINVAL with SQLite's message, TRAK_ENOMEM. */
int64_t trak__columns_fetch(sqlite3 *db, sqlite3_stmt *stmt, trak__columns **state, size_t max_rows,
                            trak_column_batch *out, trak_error *err);

/* Frees the state and every array handed out. NULL is allowed. */
void trak__columns_free(trak__columns *c);

#endif
