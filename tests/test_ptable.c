/*
** Tests of the PERFETTO TABLEs stored columnar (sql/perfetto_sql/ptable.c) and SPAN_JOIN reading
** them: every table is made twice, once by CREATE PERFETTO TABLE (columnar when its values allow)
** and once by SQLite's own CREATE TABLE ... AS, and each query answers the same on both (rows,
** types, column names, declared types): NULLs, empty tables, the int64 limits, equalities with
** integers, reals, text and NULL, joins, rowids; values that are not integers keep SQLite's
** table; DROP, OR REPLACE and a rolled-back DROP.
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

/* Three threads: nested slices, zero-length ones, an unfinished one (dur -1), and gaps. */
static const char TRACE[] = "{\"traceEvents\":["
                            "{\"ph\":\"X\",\"pid\":7,\"tid\":8,\"ts\":0,\"dur\":4,\"name\":\"p\"},"
                            "{\"ph\":\"X\",\"pid\":7,\"tid\":8,\"ts\":1,\"dur\":2,\"name\":\"q\"},"
                            "{\"ph\":\"X\",\"pid\":7,\"tid\":8,\"ts\":6,\"dur\":0,\"name\":\"r\"},"
                            "{\"ph\":\"X\",\"pid\":7,\"tid\":8,\"ts\":9,\"dur\":30,\"name\":\"s\"},"
                            "{\"ph\":\"B\",\"pid\":7,\"tid\":8,\"ts\":45,\"name\":\"t\"},"
                            "{\"ph\":\"X\",\"pid\":7,\"tid\":9,\"ts\":2,\"dur\":50,\"name\":\"u\"},"
                            "{\"ph\":\"X\",\"pid\":7,\"tid\":9,\"ts\":3,\"dur\":1,\"name\":\"v\"},"
                            "{\"ph\":\"X\",\"pid\":7,\"tid\":9,\"ts\":60,\"dur\":5,\"name\":\"w\"},"
                            "{\"ph\":\"X\",\"pid\":7,\"tid\":10,\"ts\":5,\"dur\":5,\"name\":\"x\"}"
                            "]}";

/* Whether `name` is stored columnar (a virtual table of __intrinsic_ptable). */
static int stored(trak_processor *p, const char *name) {
  return (int)sc_int(p,
                     "SELECT COUNT(*) FROM sqlite_schema WHERE name = '%s' AND sql LIKE "
                     "'%%USING __intrinsic_ptable(%%'",
                     name);
}

/* Makes `c_<name>` by CREATE PERFETTO TABLE and `s_<name>` by SQLite's CREATE TABLE AS from the
** same SELECT, and checks which kind the first is. */
static void make(trak_processor *p, const char *name, const char *select, int columnar) {
  char sql[2048];
  snprintf(sql, sizeof sql, "CREATE PERFETTO TABLE c_%s AS %s; CREATE TABLE s_%s AS %s; SELECT 1",
           name, select, name, select);
  sc_rows(p, sql);
  snprintf(sql, sizeof sql, "c_%s", name);
  if (stored(p, sql) != columnar) fail_msg("%s: columnar is not %d", name, columnar);
}

/* `query` (with %s for the table, twice at most) answers on c_<name> what it answers on
** s_<name>. */
static void same(trak_processor *p, const char *name, const char *query) {
  char c[1024], s[1024], cn[64], sn[64];
  snprintf(cn, sizeof cn, "c_%s", name);
  snprintf(sn, sizeof sn, "s_%s", name);
  snprintf(c, sizeof c, query, cn, cn);
  snprintf(s, sizeof s, query, sn, sn);
  sc_same_query(p, s, c, "columnar");
}

static const char *const QUERIES[] = {
    "SELECT * FROM %s",
    "SELECT rowid, * FROM %s",
    "SELECT COUNT(*) FROM %s",
    "SELECT * FROM %s WHERE a = 2",
    "SELECT * FROM %s WHERE a = 2.0",
    "SELECT * FROM %s WHERE a = 2.5",
    "SELECT * FROM %s WHERE a = '2'",
    "SELECT * FROM %s WHERE a = NULL",
    "SELECT * FROM %s WHERE a IS NULL",
    "SELECT * FROM %s WHERE a = 9223372036854775807",
    "SELECT * FROM %s WHERE a = -9223372036854775808",
    "SELECT * FROM %s WHERE a = 9223372036854775808.0",
    "SELECT * FROM %s WHERE a = 12345",
    "SELECT * FROM %s WHERE b > 1 ORDER BY b DESC, a",
    "SELECT x.a, y.b FROM %s x JOIN %s y ON x.a = y.b ORDER BY 1, 2",
    "SELECT a, COUNT(*) FROM %s GROUP BY a ORDER BY a",
    "SELECT name, type, pk FROM pragma_table_info('%s')",
    "SELECT typeof(a), typeof(b) FROM %s",
};

static void tables(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  make(p, "ints",
       "SELECT column1 AS a, column2 AS b FROM (VALUES (1, 2), (2, NULL), (NULL, 3), (2, 2), "
       "(9223372036854775807, -9223372036854775808), (-9223372036854775808, 0), (3, 1))",
       1);
  make(p, "none", "SELECT 1 AS a, 2 AS b WHERE 0", 1);
  make(p, "slices", "SELECT depth AS a, dur AS b, id, ts, track_id FROM slice", 1);
  make(p, "casts", "SELECT CAST(ts AS INT) AS a, ts + dur AS b, dur * 2 c FROM slice", 1);
  make(p, "mixed", "SELECT column1 AS a, column2 AS b FROM (VALUES (1, 2), (2, 'x'))", 0);
  make(p, "reals", "SELECT id AS a, dur / 2.0 AS b FROM slice", 0);
  make(p, "names", "SELECT name AS a, id AS b FROM slice", 0);
  static const char *const names[] = {"ints", "none", "slices", "casts", "mixed", "reals", "names"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    for (size_t q = 0; q < sizeof QUERIES / sizeof *QUERIES; q++)
      same(p, names[i], QUERIES[q]);
  same(p, "slices", "SELECT * FROM %s WHERE track_id = (SELECT MIN(track_id) FROM slice)");
  same(p, "slices", "SELECT s.name, c.b FROM slice s JOIN %s c ON c.id = s.id ORDER BY s.id");
  /* PERFETTO INDEX statements on a stored table do nothing: equalities use its sorted rows. */
  sc_rows(p, "CREATE PERFETTO INDEX c_slices_a ON c_slices(a); CREATE OR REPLACE PERFETTO INDEX "
             "c_slices_a ON c_slices(a, b); SELECT 1");
  same(p, "slices", "SELECT * FROM %s WHERE a = 1 ORDER BY id");
  sc_rows(p, "DROP PERFETTO INDEX c_slices_a ON c_slices; SELECT 1");
  /* Read-only, as Perfetto's tables are. */
  assert_non_null(strstr(sc_error(p, "INSERT INTO c_ints VALUES (1, 1)"), "may not be modified"));
  /* OR REPLACE, DROP, and a DROP rolled back. */
  sc_rows(p, "CREATE OR REPLACE PERFETTO TABLE c_ints AS SELECT 5 AS a");
  assert_string_equal(sc_rows(p, "SELECT * FROM c_ints"), "5");
  sc_rows(p, "BEGIN; DROP TABLE c_ints; ROLLBACK");
  assert_string_equal(sc_rows(p, "SELECT * FROM c_ints"), "5");
  sc_rows(p, "CREATE PERFETTO TABLE later AS SELECT 6 AS a"); /* (frees what was dropped) */
  assert_string_equal(sc_rows(p, "SELECT * FROM c_ints"), "5");
  sc_rows(p, "DROP TABLE c_ints");
  assert_non_null(strstr(sc_error(p, "SELECT * FROM c_ints"), "no such table"));
  sc_rows(p, "CREATE PERFETTO TABLE c_ints AS SELECT 7 AS a");
  assert_string_equal(sc_rows(p, "SELECT * FROM c_ints"), "7");
  assert_non_null(
      strstr(sc_error(p, "CREATE PERFETTO TABLE c_ints AS SELECT 8 AS a"), "already exists"));
  trak_processor_free(p);
}

/* SPAN_JOIN of stored tables answers what it answers over SQLite's tables of the same rows. */
static void span_joins(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  make(p, "l",
       "SELECT ts, dur, id AS l_id, depth AS part FROM slice WHERE track_id = "
       "(SELECT MIN(track_id) FROM slice)",
       1);
  make(p, "r",
       "SELECT ts, dur, id AS r_id, IIF(id % 2, NULL, id) AS r_odd, depth AS part FROM slice "
       "WHERE track_id = (SELECT MAX(track_id) FROM slice)",
       1);
  make(p, "e", "SELECT ts, dur, id AS e_id, depth AS part FROM slice WHERE 0", 1);
  make(p, "n",
       "SELECT column1 AS ts, column2 AS dur, column3 AS n_id, column4 AS part FROM (VALUES "
       "(1, 5, 1, 0), (2, NULL, 2, 0), (8, 4, 3, NULL), (9, -1, 4, 1))",
       1);
  make(p, "lu", "SELECT ts, dur, id AS lu_id FROM slice WHERE depth = 0", 1);
  make(p, "ru", "SELECT ts, dur, id AS ru_id, IIF(id % 2, NULL, id) AS ru_odd FROM slice", 1);
  make(p, "eu", "SELECT ts, dur, id AS eu_id FROM slice WHERE 0", 1);
  make(p, "nu",
       "SELECT column1 AS ts, column2 AS dur, column3 AS nu_id FROM (VALUES (1, 5, 1), "
       "(2, NULL, 2), (9, -1, 4))",
       1);
  /* Three other columns, NULLs in the middle one: a side's cells are read column by column. */
  make(p, "w",
       "SELECT ts, dur, id AS w_id, IIF(id % 3, NULL, depth) AS w_mid, id * 2 AS w_two, depth AS "
       "part FROM slice WHERE depth < 2",
       1);
  static const char *const kinds[] = {"SPAN_JOIN", "SPAN_LEFT_JOIN", "SPAN_OUTER_JOIN"};
  static const char *const pairs[][2] = {{"l PARTITIONED part", "r PARTITIONED part"},
                                         {"r PARTITIONED part", "l PARTITIONED part"},
                                         {"l PARTITIONED part", "e PARTITIONED part"},
                                         {"e PARTITIONED part", "r PARTITIONED part"},
                                         {"n PARTITIONED part", "l PARTITIONED part"},
                                         {"r PARTITIONED part", "n PARTITIONED part"},
                                         {"lu", "ru"},
                                         {"ru", "lu"},
                                         {"lu", "eu"},
                                         {"nu", "lu"},
                                         {"l PARTITIONED part", "ru"},
                                         {"nu", "r PARTITIONED part"},
                                         {"w PARTITIONED part", "r PARTITIONED part"},
                                         {"lu", "w PARTITIONED part"}};
  for (size_t k = 0; k < 3; k++)
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
      char sql[512];
      snprintf(sql, sizeof sql,
               "DROP TABLE IF EXISTS cj; DROP TABLE IF EXISTS sj;"
               "CREATE VIRTUAL TABLE cj USING %s(c_%s, c_%s);"
               "CREATE VIRTUAL TABLE sj USING %s(s_%s, s_%s); SELECT 1",
               kinds[k], pairs[i][0], pairs[i][1], kinds[k], pairs[i][0], pairs[i][1]);
      sc_rows(p, sql);
      sc_same_query(p, "SELECT * FROM sj", "SELECT * FROM cj", sql);
    }
  /* A temporary table of the same name is the one SPAN_JOIN reads. */
  sc_rows(p, "CREATE TEMP TABLE c_eu AS SELECT 1 AS ts, 1000 AS dur, 9 AS eu_id;"
             "DROP TABLE IF EXISTS cj; CREATE VIRTUAL TABLE cj USING SPAN_JOIN(c_lu, c_eu);"
             "DROP TABLE IF EXISTS sj; CREATE VIRTUAL TABLE sj USING SPAN_JOIN(s_lu, c_eu)");
  sc_same_query(p, "SELECT * FROM sj", "SELECT * FROM cj", "temporary c_eu");
  assert_string_equal(sc_rows(p, "SELECT COUNT(DISTINCT eu_id) FROM cj"), "1");
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(tables), cmocka_unit_test(span_joins)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
