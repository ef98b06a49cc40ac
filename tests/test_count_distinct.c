/*
** Tests of COUNT(DISTINCT c) answered by a hash set (sql/perfetto_sql/count_distinct.c): each
** rewritten statement answers, with the same column names, rows and types, what SQLite answers
** for the statement itself, over integers, reals equal to integers (1 and 1.0, -0.0 and 0), the
** int64 and double limits, text and blobs of the same bytes, empty strings, NULLs, empty tables,
** groups, the columnar tables and a SPAN_JOIN; and the shapes that must stay SQLite's are left.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "sqlcheck.h"

static const char TRACE[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":10,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":5,\"name\":\"B\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":0,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":12,\"dur\":3,\"name\":\"D\"},"
    "{\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":20,\"name\":\"open\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":1,\"dur\":100,\"name\":\"L\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":4,\"dur\":2,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":150,\"dur\":1,\"name\":\"S\"}"
    "]}";

/* `sql` is rewritten (or not: `expect`) and then answers what SQLite answers for it. */
static void same(trak_processor *p, const char *sql, int expect) {
  sc_rewrite_same(p, sql, expect, trak__psql_count_distinct, "__intrinsic_count_distinct");
}

static void values(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  sc_rows(p,
          "CREATE TABLE v(g INT, x, t TEXT, n TEXT COLLATE NOCASE);"
          "INSERT INTO v VALUES (1, 1, 'a', 'a'), (1, 1.0, 'A', 'A'), (1, 2, 'a', 'b'),"
          "(1, NULL, NULL, NULL), (2, -0.0, '', ''), (2, 0, x'', 'x'), (2, '1', x'61', 'X'),"
          "(2, x'31', 'a ', 'y'), (3, 9007199254740993, 'b', 'z'),"
          "(3, 9007199254740992.0, 'B', 'Z'), (3, 9007199254740992, 'b', 'z'),"
          "(3, 9223372036854775807, 'c', 'c'), (3, 9223372036854775808.0, 'c', 'C'),"
          "(3, -9223372036854775808, 'd', 'd'), (3, -9223372036854775808.0, 'd', 'd'),"
          "(4, 1e300, 'e', 'e'), (4, 1e300, 'e', 'e'), (4, 0.5, 'f', 'f'), (4, 0.25, 'f', 'f'),"
          "(4, '', '', ''), (4, x'', x'', x''), (5, NULL, NULL, NULL);"
          "CREATE TABLE e(x INT, t TEXT);"
          /* ascending runs broken late, by a repeat of an early value or by a text */
          "CREATE TABLE runs AS WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r "
          "WHERE i < 999) SELECT i AS up, iif(i = 999, 3, i) AS back, iif(i = 998, 'x', i) AS "
          "txt, i / 2 AS twice, iif(i < 500, i, 1000 - i) AS peak, -i AS down, iif(i % 100, "
          "i, NULL) AS holes, iif(i = 500, 250.0, i) AS real FROM r;"
          "CREATE TABLE big AS WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r "
          "WHERE i < 2999) SELECT i % 1000 AS k, i % 7 AS g, printf('s%d', i % 500) AS s FROM r");
  static const char *const rewritten[] = {
      "SELECT COUNT(DISTINCT x) FROM v", "SELECT COUNT(DISTINCT x), COUNT(DISTINCT t) FROM v",
      "SELECT count(distinct x) FROM v", "SELECT COUNT( DISTINCT  x ) FROM v",
      "SELECT COUNT(DISTINCT x) AS n, COUNT(DISTINCT t) m FROM v",
      "SELECT g, COUNT(DISTINCT x), COUNT(*), COUNT(DISTINCT t) FROM v GROUP BY g ORDER BY g",
      "SELECT g, COUNT(DISTINCT x) AS n FROM v GROUP BY g ORDER BY n DESC, g",
      "SELECT g, COUNT(DISTINCT x) AS n FROM v AS w GROUP BY g ORDER BY n DESC, g LIMIT 2",
      "SELECT COUNT(DISTINCT x) FROM v w WHERE g < 3;",
      "SELECT COUNT(DISTINCT x) FROM v WHERE g >= 3",
      "SELECT COUNT(DISTINCT x) FROM v WHERE g > 100",
      "SELECT COUNT(DISTINCT x), COUNT(DISTINCT t) FROM e",
      "SELECT t, COUNT(DISTINCT x) FROM e GROUP BY t",
      "SELECT COUNT(DISTINCT k), COUNT(DISTINCT s), COUNT(DISTINCT g) FROM big",
      "SELECT g, COUNT(DISTINCT k), COUNT(DISTINCT s) FROM big GROUP BY g",
      "SELECT COUNT(DISTINCT rowid) FROM v",
      "SELECT COUNT(DISTINCT up), COUNT(DISTINCT back), COUNT(DISTINCT txt), COUNT(DISTINCT twice),"
      " COUNT(DISTINCT peak), COUNT(DISTINCT down), COUNT(DISTINCT holes), COUNT(DISTINCT real) "
      "FROM runs",
      "SELECT up % 3, COUNT(DISTINCT back), COUNT(DISTINCT peak) FROM runs GROUP BY 1",
      "SELECT COUNT(DISTINCT x) FROM v WHERE g = ? OR ?2 IS NULL", /* unbound: NULL */
      /* The columnar tables: string ids, NULLs (parent_id of the roots), integers. */
      "SELECT COUNT(DISTINCT name), COUNT(DISTINCT parent_id), COUNT(DISTINCT track_id), "
      "COUNT(DISTINCT dur) FROM slice",
      "SELECT track_id, COUNT(DISTINCT name) FROM slice GROUP BY track_id",
      "SELECT COUNT(DISTINCT name) FROM slice WHERE dur < 0",
      "SELECT COUNT(DISTINCT tid) FROM thread;"};
  for (size_t i = 0; i < sizeof rewritten / sizeof *rewritten; i++)
    same(p, rewritten[i], 1);
  /* Left to SQLite: a NOCASE column, a view, joins, subqueries, an expression around it, a
  ** window, FILTER, SELECT DISTINCT, qualified columns, other clauses. */
  sc_rows(p, "CREATE VIEW vv AS SELECT x FROM v");
  static const char *const refused[] = {
      "SELECT COUNT(DISTINCT n) FROM v",
      "SELECT COUNT(DISTINCT x), COUNT(DISTINCT n) FROM v",
      "SELECT COUNT(DISTINCT x) FROM vv",
      "SELECT COUNT(DISTINCT x) FROM v JOIN e USING (x)",
      "SELECT COUNT(DISTINCT x) FROM v, e",
      "SELECT COUNT(DISTINCT x) FROM v WHERE g IN (SELECT x FROM e)",
      "SELECT COUNT(DISTINCT x) + 1 FROM v",
      "SELECT 1 + COUNT(DISTINCT x) FROM v",
      "SELECT COUNT(DISTINCT x) FILTER (WHERE g > 1) FROM v",
      "SELECT DISTINCT COUNT(DISTINCT x) FROM v GROUP BY g",
      "SELECT COUNT(DISTINCT v.x) FROM v",
      "SELECT COUNT(DISTINCT x) FROM main.v",
      "SELECT COUNT(DISTINCT x) FROM v UNION ALL SELECT 1",
      "SELECT COUNT(DISTINCT x) FROM v LEFT JOIN e USING (x)",
      "SELECT COUNT(DISTINCT x) FROM v NATURAL JOIN e",
      "SELECT COUNT(DISTINCT x) FROM v AS a, e",
      "SELECT COUNT(DISTINCT x) FROM v a CROSS JOIN e",
      "SELECT COUNT(DISTINCT x) FROM v INDEXED BY i",
      "SELECT COUNT(DISTINCT x) FROM slice_subtree(1)",
      "SELECT g FROM v GROUP BY g HAVING COUNT(DISTINCT x) > 1",
      "SELECT g FROM v GROUP BY g ORDER BY COUNT(DISTINCT x)",
      "SELECT COUNT(DISTINCT x + 1) FROM v",
      "SELECT COUNT(DISTINCT nope) FROM v",
      "SELECT COUNT(DISTINCT x) FROM nope",
      "SELECT COUNT(x) FROM v"};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
    same(p, refused[i], 0);
  /* A temporary table of the same name is the one read, with its own collation. */
  sc_rows(p,
          "CREATE TEMP TABLE e(x TEXT COLLATE NOCASE, t TEXT); INSERT INTO temp.e VALUES ('a', 1), "
          "('A', 1)");
  same(p, "SELECT COUNT(DISTINCT x) FROM e", 0);
  same(p, "SELECT COUNT(DISTINCT t) FROM e", 1);
  assert_string_equal(sc_rows(p, "SELECT COUNT(DISTINCT x), COUNT(DISTINCT t) FROM e"), "1|1");
  trak_processor_free(p);
}

/* The query set's span_join shape: PERFETTO TABLEs joined by SPAN_JOIN, distinct ids of each. */
static void span_join(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  sc_rows(p, "CREATE PERFETTO TABLE a AS SELECT ts, dur, id AS a_id FROM slice WHERE depth = 0 "
             "AND track_id = (SELECT MIN(track_id) FROM slice);"
             "CREATE PERFETTO TABLE b AS SELECT ts, dur, id AS b_id FROM slice WHERE depth = 0 "
             "AND track_id = (SELECT MAX(track_id) FROM slice);"
             "CREATE VIRTUAL TABLE j USING SPAN_JOIN(a, b);"
             "CREATE PERFETTO TABLE none AS SELECT ts, dur, id AS n_id FROM slice WHERE dur > 1000;"
             "CREATE VIRTUAL TABLE j0 USING SPAN_JOIN(a, none)");
  same(p,
       "SELECT COUNT(*), SUM(dur), MIN(ts), MAX(ts + dur), COUNT(DISTINCT a_id), "
       "COUNT(DISTINCT b_id) FROM j",
       1);
  assert_string_equal(sc_rows(p, "SELECT COUNT(*), COUNT(DISTINCT a_id), COUNT(DISTINCT b_id) "
                                 "FROM j"),
                      "3|3|1"); /* A, D and the unfinished slice, each within L */
  same(p, "SELECT COUNT(DISTINCT a_id), COUNT(DISTINCT n_id) FROM j0", 1);
  assert_string_equal(sc_column_names(p, "SELECT COUNT(DISTINCT a_id), COUNT( DISTINCT b_id ) x, "
                                         "count(distinct  b_id) FROM j"),
                      "COUNT(DISTINCT a_id)|x|count(distinct  b_id)");
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(values), cmocka_unit_test(span_join)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
