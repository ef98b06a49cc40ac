/*
** Helpers for tests that run SQL on a small trace: open a processor from a literal trace (JSON
** or text protobuf) and return the rows of a query as text ("a|b\nc|d"), so that a test states
** the expected answer in one string.
*/
#ifndef TRAK_SQLCHECK_H
#define TRAK_SQLCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "trak/processor.h"

/* Imports `text` (a JSON trace, or a text protobuf when it starts with "packet"); fails the test
** on error. */
trak_processor *sc_open(const char *text);
/* Runs `fn` inside a fresh in-process SDK session (default config) and returns its trace
** imported into a new processor, which the caller frees. Fails the test on any error. */
trak_processor *sc_record(void (*fn)(void));
/* sc_open of the file at `path` in the source tree (tests/data/...). */
trak_processor *sc_open_file(const char *path);
/* cmocka group setup and teardown: a processor on an empty JSON trace in *state, freed after. */
int sc_setup_empty(void **state);
int sc_teardown(void **state);
/* Runs every statement of `sql` and returns the rows of the last one that has columns, values
** separated by '|', rows by '\n', NULL as "NULL". The string is static (valid until the next
** call). Fails the test on an error. */
const char *sc_rows(trak_processor *p, const char *sql);
/* The one integer that the SQL made by printf formatting `fmt` answers (sc_rows, then a number);
** fails the test when it is not one. */
int64_t sc_int(trak_processor *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Runs `sql` expecting an error and returns its message (static). Fails the test if it works. */
const char *sc_error(trak_processor *p, const char *sql);

/* The column names of `sql`'s result (its last statement's), joined by '|' (static, valid until
** the next call). Fails the test on an error. */
const char *sc_column_names(trak_processor *p, const char *sql);

/* Fails the test unless prepared statement `fast` (a rewrite of `sql`) answers, with the same
** column names, rows, value types and errors, what SQLite answers for `sql` itself on p's
** connection; `what` names the rewrite in the message. Finalizes `fast`. */
struct sqlite3_stmt;
void sc_same_as_sqlite(trak_processor *p, const char *sql, struct sqlite3_stmt *fast,
                       const char *what);

/* Fails the test unless `rewrite` (a statement rewrite of sql/perfetto_sql: returns 1 with a
** prepared statement, 0 leaving `sql` to SQLite) returns `expect` for `sql`, and when it
** rewrites, unless the statement's text holds `marker` and it answers as sc_same_as_sqlite
** checks. */
void sc_rewrite_same(trak_processor *p, const char *sql, int expect,
                     int (*rewrite)(trak_processor *, const char *, size_t, struct sqlite3_stmt **),
                     const char *marker);
/* sc_same_as_sqlite of `fast_sql` prepared on p's connection against `sql`. */
void sc_same_query(trak_processor *p, const char *sql, const char *fast_sql, const char *what);

/* A query and its expected rows in sc_rows' format. */
typedef struct sc_check {
  const char *sql;
  const char *want;
} sc_check;
/* Runs every check, printing each mismatch with the actual rows, then fails if any did. */
void sc_run_checks(trak_processor *p, const sc_check *c, size_t n);

/* sc_open(text), then the statements of `setup` (NULL: none; e.g. an INCLUDE), then
** sc_run_checks, then frees the processor. */
void sc_check_trace(const char *text, const char *setup, const sc_check *c, size_t n);

#endif /* TRAK_SQLCHECK_H */
