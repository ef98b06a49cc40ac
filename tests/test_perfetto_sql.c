/*
** Tests of the PerfettoSQL language run through trak_query_open: INCLUDE PERFETTO MODULE,
** CREATE PERFETTO FUNCTION (scalar and table), TABLE, VIEW, INDEX, MACRO and the built-in cast
** macros, with errors that name the statement, line and column of the user's text.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "processor/tables/vtab.h"
#include "sqlcheck.h"

/* One process, one thread, A (1..11 us) holding B (2..7) holding C (3..4); D on another thread. */
static const char TRACE[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"proc\"}},"
    "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"main\"}},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":10,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":5,\"name\":\"B\",\"args\":{\"x\":3.5}},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":1,\"name\":\"C\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":20,\"dur\":4,\"name\":\"D\"}"
    "]}";

static trak_processor *p;

static int setup(void **state) {
  p = sc_open(TRACE);
  return 0;
}
static int teardown(void **state) {
  trak_processor_free(p);
  return 0;
}

static void scalar_function(void **state) {
  assert_string_equal(sc_rows(p, "CREATE PERFETTO FUNCTION add_ints(x INT, y INT) RETURNS INT "
                                 "AS SELECT $x + $y;"
                                 "SELECT add_ints(2, 3), add_ints(NULL, 1) IS NULL"),
                      "5|1");
  /* A function that reads tables and calls another function, and one without rows: NULL. */
  assert_string_equal(sc_rows(p, "CREATE PERFETTO FUNCTION slice_dur(n STRING) RETURNS INT AS "
                                 "SELECT add_ints(dur, 0) FROM slice WHERE name = $n;"
                                 "SELECT slice_dur('B'), slice_dur('nope')"),
                      "5000|NULL");
  /* Recursion runs on a fresh statement per level. */
  assert_string_equal(sc_rows(p, "CREATE PERFETTO FUNCTION fact(n INT) RETURNS INT AS "
                                 "SELECT IIF($n <= 1, 1, $n * fact($n - 1));"
                                 "SELECT fact(5)"),
                      "120");
  /* Runaway recursion is an error, not a stack overflow. */
  assert_non_null(strstr(sc_error(p, "CREATE PERFETTO FUNCTION forever(n INT) RETURNS INT AS "
                                     "SELECT forever($n + 1); SELECT forever(0)"),
                         "functions nested deeper than 100 calls"));
  assert_non_null(strstr(sc_error(p, "CREATE PERFETTO FUNCTION add_ints(x INT) RETURNS INT AS "
                                     "SELECT $x"),
                         "function 'add_ints' already exists"));
  assert_string_equal(sc_rows(p, "CREATE OR REPLACE PERFETTO FUNCTION add_ints(x INT, y INT) "
                                 "RETURNS INT AS SELECT $x * $y; SELECT add_ints(2, 3)"),
                      "6");
}

static void table_function(void **state) {
  assert_string_equal(
      sc_rows(p, "CREATE PERFETTO FUNCTION named(n STRING) RETURNS TABLE(id INT, name STRING) AS "
                 "SELECT id, name FROM slice WHERE name = $n OR name = 'D';"
                 "SELECT name FROM named('B') ORDER BY name"),
      "B\nD");
  /* Called per row of a join, with a column as the argument. */
  assert_string_equal(sc_rows(p, "SELECT s.name, n.name FROM slice s JOIN named(s.name) n "
                                 "WHERE s.name IN ('A', 'C') ORDER BY 1, 2"),
                      "A|A\nA|D\nC|C\nC|D");
  assert_non_null(strstr(sc_error(p, "CREATE PERFETTO FUNCTION two() RETURNS TABLE(a INT, b INT) "
                                     "AS SELECT 1"),
                         "the body returns 1 columns, RETURNS TABLE declares 2"));
}

/* `SELECT COUNT(*) FROM <table>` on a columnar table is answered from its row count
** (count_rows.c): the same answer and column name as SQLite's count of every row (`WHERE 1` is
** not rewritten) on every table, and SQLite's own answer where the name means something else. */
static void count_rows(void **state) {
  for (size_t i = 0; trak__vt_table(i); i++) {
    char fast[128], slow[128], both[300];
    snprintf(fast, sizeof fast, "SELECT COUNT(*) FROM %s", trak__vt_table(i)->name);
    snprintf(slow, sizeof slow, "SELECT COUNT(*) FROM %s WHERE 1", trak__vt_table(i)->name);
    snprintf(both, sizeof both, "SELECT (%s) = (%s)", fast, slow);
    assert_string_equal(sc_rows(p, both), "1");
    int64_t n = sc_int(p, "%s", slow);
    assert_int_equal(sc_int(p, "%s", fast), n);
    assert_int_equal(sc_int(p, "%s;", fast), n);
  }
  assert_string_equal(sc_rows(p, "select count( * ) from SLICE ; "), "4");
  trak_query *q = NULL;
  trak_error err = {0};
  assert_int_equal(trak_query_open(p, "select count( * )\nfrom slice", &q, NULL, &err), 0);
  assert_string_equal(trak_query_column_name(q, 0), "count( * )");
  assert_int_equal(trak_query_next(q, &err), 1);
  assert_string_equal(trak_query_string(q, 0), "4");
  trak_query_free(q);
  /* Other shapes and other objects of the name: SQLite's answer. */
  assert_string_equal(sc_rows(p, "SELECT COUNT(*) FROM slice AS s"), "4");
  assert_string_equal(sc_rows(p, "SELECT COUNT(*) FROM \"slice\""), "4");
  assert_string_equal(sc_rows(p, "SELECT COUNT(*) FROM slice WHERE dur > 4000"), "2");
  assert_string_equal(sc_rows(p, "SELECT COUNT(*) FROM thread_track"), "2");
  assert_string_equal(sc_rows(p, "CREATE TEMP VIEW slice AS SELECT 1 AS x UNION SELECT 2; "
                                 "SELECT COUNT(*) FROM slice"),
                      "2");
  assert_string_equal(sc_rows(p, "DROP VIEW temp.slice; SELECT COUNT(*) FROM slice"), "4");
  assert_non_null(strstr(sc_error(p, "SELECT __intrinsic_row_count('nope')"), "no such columnar"));
}

static void table_view_index(void **state) {
  assert_string_equal(sc_rows(p, "CREATE PERFETTO TABLE t(id INT, n STRING, d DURATION) AS "
                                 "SELECT name AS n, id, dur AS d FROM slice;"
                                 "SELECT typeof(id), typeof(n), count(*) FROM t"),
                      "integer|text|4");
  assert_string_equal(sc_rows(p, "SELECT type FROM sqlite_master WHERE name = 't'"), "table");
  assert_non_null(
      strstr(sc_error(p, "CREATE PERFETTO TABLE t2(id INT) AS SELECT id, name FROM slice"),
             "column 'name' of the SELECT is not in the schema"));
  assert_non_null(strstr(sc_error(p, "CREATE PERFETTO TABLE t3(id FOO) AS SELECT id FROM slice"),
                         "unknown type 'FOO'"));
  assert_string_equal(sc_rows(p, "CREATE PERFETTO TABLE u AS SELECT 1 AS a;"
                                 "CREATE OR REPLACE PERFETTO TABLE u AS SELECT 2 AS a;"
                                 "SELECT a FROM u"),
                      "2");
  assert_string_equal(sc_rows(p, "CREATE PERFETTO VIEW v AS SELECT name FROM slice WHERE depth = 2;"
                                 "SELECT * FROM v"),
                      "C");
  assert_string_equal(sc_rows(p, "CREATE OR REPLACE PERFETTO VIEW v(name STRING) AS "
                                 "SELECT name FROM slice WHERE depth = 1; SELECT * FROM v"),
                      "B");
  assert_string_equal(sc_rows(p, "SELECT type FROM sqlite_master WHERE name = 'v'"), "view");
  assert_string_equal(sc_rows(p, "CREATE PERFETTO INDEX t_n ON t(n, id);"
                                 "SELECT count(*) FROM sqlite_master WHERE name = 't_n'"),
                      "1");
  assert_string_equal(sc_rows(p, "CREATE OR REPLACE PERFETTO INDEX t_n ON t(id);"
                                 "DROP PERFETTO INDEX t_n ON t;"
                                 "SELECT count(*) FROM sqlite_master WHERE name = 't_n'"),
                      "0");
}

static void macros(void **state) {
  assert_string_equal(sc_rows(p, "CREATE PERFETTO MACRO twice(e Expr) RETURNS Expr AS ($e) * 2;"
                                 "SELECT twice!(twice!(1 + 2))"),
                      "12");
  /* Arguments with commas, parentheses and strings; a table-valued macro. */
  assert_string_equal(
      sc_rows(p, "CREATE PERFETTO MACRO pick(t TableOrSubquery, col ColumnName, "
                 "cond Expr) RETURNS TableOrSubquery AS (SELECT $col, depth FROM $t WHERE $cond);"
                 "SELECT * FROM pick!((SELECT * FROM slice WHERE dur > 0), name, "
                 "name IN ('A', 'x,)y')) "),
      "A|0");
  assert_string_equal(sc_rows(p, "SELECT cast_int!('3') + 1, cast_double!(1) / 2, "
                                 "cast_string!(7) || 'x', 1 != 2"),
                      "4|0.5|7x|1");
  /* '!' in strings and comments is no invocation. */
  assert_string_equal(sc_rows(p, "SELECT 'twice!(1)' -- twice!(\n"), "twice!(1)");
  assert_non_null(strstr(sc_error(p, "SELECT nope!(1)"), "unknown macro 'nope'"));
  assert_non_null(strstr(sc_error(p, "SELECT twice!(1, 2)"), "takes 1 argument, got 2"));
  assert_non_null(strstr(sc_error(p, "SELECT twice!(1"), "is not closed"));
  assert_non_null(strstr(sc_error(p, "CREATE PERFETTO MACRO loop(e Expr) RETURNS Expr AS loop!($e);"
                                     "SELECT loop!(1)"),
                         "deeper than"));
  /* Twice per level would double 64 times: stopped by size. */
  assert_non_null(strstr(sc_error(p, "CREATE PERFETTO MACRO dbl(e Expr) RETURNS Expr AS "
                                     "dbl!($e) + dbl!($e); SELECT dbl!(1)"),
                         "macro expansion"));
}

static void include(void **state) {
  /* Idempotent; `.*` covers a folder; unknown modules are named. */
  assert_string_equal(sc_rows(p, "INCLUDE PERFETTO MODULE time.conversion;"
                                 "INCLUDE PERFETTO MODULE time.conversion;"
                                 "SELECT time_to_ms(2000000)"),
                      "2");
  assert_string_equal(
      sc_rows(p, "INCLUDE PERFETTO MODULE slices.*; SELECT count(*) FROM thread_slice"), "4");
  assert_string_equal(sc_error(p, "INCLUDE PERFETTO MODULE foo.bar;"),
                      "unknown module 'foo.bar' (INCLUDE PERFETTO MODULE foo.bar at line 1, "
                      "column 25)");
  assert_non_null(strstr(sc_error(p, "INCLUDE PERFETTO MODULE nothing.*"), "no module matches"));
}

static void error_positions(void **state) {
  /* Line and column in the user's text, across statements and through a macro's expansion. */
  assert_string_equal(sc_error(p, "SELECT 1;\nSELECT\n  nope FROM slice"),
                      "no such column: nope (SELECT at line 3, column 3)");
  assert_string_equal(sc_error(p, "CREATE OR REPLACE PERFETTO MACRO bad(e Expr) RETURNS Expr AS "
                                  "$e + nosuch;\nSELECT 1,\n   bad!(1)"),
                      "no such column: nosuch (SELECT at line 3, column 4)");
  assert_string_equal(sc_error(p, "SELECT twice!(1) + \n  nosuch2"),
                      "no such column: nosuch2 (SELECT at line 2, column 3)");
  assert_string_equal(sc_error(p, "CREATE PERFETTO FUNCTION g(x INT) RETURNS INT AS\n"
                                  "  SELECT $x + nosuch3"),
                      "no such column: nosuch3 (CREATE PERFETTO FUNCTION g at line 2, column 15)");
  assert_non_null(strstr(sc_error(p, "CREATE PERFETTO FUNCTION h(x INT) RETURNS INT"),
                         "expected AS, found the end of the statement"));
  assert_non_null(strstr(sc_error(p, "CREATE PERFETTO GADGET g"),
                         "expected FUNCTION, TABLE, VIEW, MACRO or INDEX"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(scalar_function),  cmocka_unit_test(table_function),
      cmocka_unit_test(table_view_index), cmocka_unit_test(macros),
      cmocka_unit_test(count_rows),       cmocka_unit_test(include),
      cmocka_unit_test(error_positions),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
