/*
** Shared by the tests of join_aggregates.c (test_column_aggregates, test_grouped_aggregates): two
** traces, and the checks that a join statement is rewritten (or not) and answers what SQLite
** answers for it.
*/
#ifndef TRAK_TESTS_JOIN_CHECK_H
#define TRAK_TESTS_JOIN_CHECK_H

#include <string.h>

#include <sqlite3.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "sqlcheck.h"

/* Slices three and four deep (grandparents), categories on some (NULL on the others), repeated
** names under different parents and an unfinished parent. */
static const char JC_DEEP[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":100,\"name\":\"A\",\"cat\":\"c1\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":50,\"name\":\"B\",\"cat\":\"c2\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":10,\"name\":\"C\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":4,\"dur\":1,\"name\":\"C\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":60,\"dur\":5,\"name\":\"B\",\"cat\":\"c1\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":61,\"dur\":1,\"name\":\"A\"},"
    "{\"ph\":\"B\",\"pid\":1,\"tid\":3,\"ts\":1,\"name\":\"open\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":2,\"dur\":1,\"name\":\"C\"}"
    "]}";
/* A trace without slices (one counter). */
static const char JC_NO_SLICES[] =
    "{\"traceEvents\":[{\"ph\":\"C\",\"pid\":1,\"ts\":1,\"name\":\"a\",\"args\":{\"v\":1}}]}";

/* Fails the test unless join_aggregates.c rewrites `sql` (or not: `expect`) and, when it does,
** into a statement answering, with the same column names, rows, types and errors, what SQLite
** answers for `sql` itself. */
static inline void jc_same_join(trak_processor *p, const char *sql, int expect) {
  sc_rewrite_same(p, sql, expect, trak__psql_join_aggregates, "__intrinsic_col_group");
}

/* Whether `sql` is rewritten to one __intrinsic_col_group through the parent ('parent_id>'). */
static inline int jc_self_joined(trak_processor *p, const char *sql) {
  sqlite3_stmt *st = NULL;
  int r = trak__psql_join_aggregates(p, sql, strlen(sql), &st);
  r = r == 1 && strstr(sqlite3_sql(st), "'parent_id>") != NULL;
  sqlite3_finalize(st);
  return r;
}

#endif
