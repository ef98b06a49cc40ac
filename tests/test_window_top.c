/*
** Tests of "the first N rows of each group" answered from the columns (sql/perfetto_sql/
** window_top.c and tables/vtab_top.c): each rewritten statement answers what SQLite's own window
** function answers (the same statement with `rn <= N + 0`, which is not rewritten), row for row
** and with the same column names, over groups with ties, NULL keys, zero-length and unfinished
** slices, views and empty relations; the shapes that must stay SQLite's are not rewritten.
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

/* Three threads (tid 2: nested slices, ties in dur, a zero-length one; tid 3: an unfinished one,
** dur -1; tid 4: one slice), an async slice on a process track (no thread: utid NULL) and a
** counter. */
static const char TRACE[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":10,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":5,\"name\":\"B\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":1,\"name\":\"B1\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":20,\"dur\":5,\"name\":\"C\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":30,\"dur\":0,\"name\":\"D\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":40,\"dur\":5,\"name\":\"E\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":25,\"dur\":3,\"name\":\"F\"},"
    "{\"ph\":\"B\",\"pid\":1,\"tid\":3,\"ts\":30,\"name\":\"open\"},"
    "{\"ph\":\"X\",\"pid\":2,\"tid\":4,\"ts\":5,\"dur\":7,\"name\":\"G\"},"
    "{\"ph\":\"b\",\"cat\":\"c\",\"id\":1,\"pid\":1,\"ts\":3,\"name\":\"async\"},"
    "{\"ph\":\"e\",\"cat\":\"c\",\"id\":1,\"pid\":1,\"ts\":9,\"name\":\"async\"},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":1,\"name\":\"ctr\",\"args\":{\"v\":2.5}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":2,\"name\":\"ctr\",\"args\":{\"v\":1.5}}"
    "]}";

/* Whether `sql` is rewritten to read __intrinsic_top_per_group. */
static int rewritten(trak_processor *p, const char *sql) {
  sqlite3_stmt *st = NULL;
  int r = trak__psql_window_top(p, sql, strlen(sql), &st);
  if (r) assert_non_null(strstr(sqlite3_sql(st), "__intrinsic_top_per_group"));
  sqlite3_finalize(st);
  return r;
}

/* `tmpl` with its one %s replaced by `n` is rewritten (or not: `expect`) and answers what it
** answers with `n + 0` there (never rewritten: SQLite's window function), with the same names.
** Returns the rows (static, sc_rows'). */
static const char *same(trak_processor *p, const char *tmpl, const char *n, int expect) {
  char fast[1024], slow[1024], names[512], with[32];
  snprintf(with, sizeof with, "%s + 0", n);
  snprintf(fast, sizeof fast, tmpl, n);
  snprintf(slow, sizeof slow, tmpl, with);
  if (rewritten(p, fast) != expect) fail_msg("%s: rewritten is not %d", fast, expect);
  assert_int_equal(rewritten(p, slow), 0);
  char *rows = strdup(sc_rows(p, slow));
  assert_non_null(rows);
  const char *got = sc_rows(p, fast);
  if (strcmp(got, rows)) fail_msg("%s: %s, SQLite: %s", fast, got, rows);
  free(rows);
  snprintf(names, sizeof names, "%s", sc_column_names(p, slow));
  assert_string_equal(sc_column_names(p, fast), names);
  return sc_rows(p, fast);
}

static void shapes(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  sc_rows(p, "INCLUDE PERFETTO MODULE slices.with_context;"
             "CREATE VIEW v AS SELECT id, dur AS d, track_id AS t, name FROM slice;"
             "CREATE VIEW v_none AS SELECT id, dur, track_id FROM slice WHERE dur >= 1000;"
             "CREATE VIEW v_expr AS SELECT id, dur + 1 AS dur, track_id FROM slice;");
  static const char *const ns[] = {"1", "2", "3", "10000"};
  /* The query set's top_per_thread, and its answer written down (ties in dur by id). */
  const char *per_thread =
      "SELECT utid, name, dur FROM (SELECT utid, name, dur, row_number() OVER (PARTITION BY utid "
      "ORDER BY dur DESC, id) AS rn FROM thread_slice) WHERE rn <= %s ORDER BY utid, rn";
  const char *got = same(p, per_thread, "3", 1);
  assert_non_null(strstr(got, "|A|10000\n"));
  assert_non_null(strstr(got, "|B|5000\n"));
  assert_non_null(strstr(got, "|C|5000\n"));
  assert_null(strstr(got, "|E|5000")); /* the third 5 comes after B and C by id */
  assert_null(strstr(got, "async"));   /* no thread */
  const char *const rewrite_yes[] = {
      per_thread,
      "SELECT utid, name, dur FROM (SELECT utid, name, dur, row_number() OVER (PARTITION BY utid "
      "ORDER BY dur, id DESC) AS rn FROM thread_slice) WHERE rn <= %s ORDER BY utid DESC, rn DESC",
      /* NULL parents: one group; depth descending, then ts, then the id. */
      "SELECT parent_id, id FROM (SELECT parent_id, id, row_number() OVER (PARTITION BY parent_id "
      "ORDER BY depth DESC, ts, id) AS rn FROM slice) WHERE rn <= %s ORDER BY parent_id, rn",
      /* NULL order keys (parent_id) first ascending, last descending. */
      "SELECT depth, id FROM (SELECT depth, id, row_number() OVER (PARTITION BY depth ORDER BY "
      "parent_id DESC, id) AS rn FROM slice) WHERE rn <= %s ORDER BY depth, rn",
      "SELECT track_id, id FROM (SELECT track_id, id, row_number() OVER (PARTITION BY track_id "
      "ORDER BY parent_id, dur DESC, id) AS rn FROM slice) WHERE rn <= %s "
      "ORDER BY track_id DESC, rn LIMIT 3 OFFSET 1",
      /* The row number not last, an unfinished slice's dur -1, the partition not selected. */
      "SELECT rn, id FROM (SELECT row_number() OVER (PARTITION BY track_id ORDER BY dur, id) AS "
      "rn, id, track_id FROM slice) WHERE rn <= %s ORDER BY track_id, rn",
      /* A view renaming the columns; a filtering view without rows; an empty table. */
      "SELECT t, name, d FROM (SELECT t, name, d, row_number() OVER (PARTITION BY t ORDER BY d "
      "DESC, id) AS rn FROM v) WHERE rn <= %s ORDER BY t, rn",
      "SELECT id FROM (SELECT id, track_id, row_number() OVER (PARTITION BY track_id ORDER BY "
      "dur, id) AS rn FROM v_none) WHERE rn <= %s ORDER BY track_id, rn",
      "SELECT id FROM (SELECT id, slice_out, row_number() OVER (PARTITION BY slice_out ORDER BY "
      "id) AS rn FROM flow) WHERE rn <= %s ORDER BY slice_out, rn",
      /* A boolean order key with NULLs, groups of a NULL-able key. */
      "SELECT upid, tid FROM (SELECT upid, tid, row_number() OVER (PARTITION BY upid ORDER BY "
      "is_main_thread DESC, id) AS rn FROM thread) WHERE rn <= %s ORDER BY upid, rn",
  };
  for (size_t i = 0; i < sizeof rewrite_yes / sizeof *rewrite_yes; i++)
    for (size_t j = 0; j < sizeof ns / sizeof *ns; j++)
      same(p, rewrite_yes[i], ns[j], 1);
  /* Left to SQLite, with the same answers: ties possible (the order does not end in the id), a
  ** text partition, an outer order that is not total, a real order key, an expression. */
  static const char *const rewrite_no[] = {
      "SELECT utid, dur FROM (SELECT utid, dur, row_number() OVER (PARTITION BY utid "
      "ORDER BY dur DESC) AS rn FROM thread_slice) WHERE rn <= %s ORDER BY utid, rn",
      "SELECT name, id FROM (SELECT name, id, row_number() OVER (PARTITION BY name "
      "ORDER BY dur DESC, id) AS rn FROM slice) WHERE rn <= %s ORDER BY name, rn",
      "SELECT utid, dur FROM (SELECT utid, dur, id, row_number() OVER (PARTITION BY utid "
      "ORDER BY dur DESC, id) AS rn FROM thread_slice) WHERE rn <= %s ORDER BY utid, dur, id",
      "SELECT track_id, id FROM (SELECT track_id, id, row_number() OVER (PARTITION BY track_id "
      "ORDER BY value, id) AS rn FROM counter) WHERE rn <= %s ORDER BY track_id, rn",
      "SELECT track_id, id FROM (SELECT track_id, id, row_number() OVER (PARTITION BY track_id "
      "ORDER BY dur, id) AS rn FROM v_expr) WHERE rn <= %s ORDER BY track_id, rn",
  };
  for (size_t i = 0; i < sizeof rewrite_no / sizeof *rewrite_no; i++)
    for (size_t j = 0; j < sizeof ns / sizeof *ns; j++)
      same(p, rewrite_no[i], ns[j], 0);
  /* rank() and dense_rank() number as row_number() when the order ends in the id; `rn < N`
  ** keeps N - 1 rows (none for N = 1: left to SQLite); `rn = 1` and, when the groups keep one
  ** row, an outer order by the partition alone. */
  static const char *const family[] = {
      "SELECT utid, name, dur FROM (SELECT utid, name, dur, rank() OVER (PARTITION BY utid "
      "ORDER BY dur DESC, id) AS rn FROM thread_slice) WHERE rn <= %s ORDER BY utid, rn",
      "SELECT rk, track_id, id FROM (SELECT track_id, id, DENSE_RANK() OVER (PARTITION BY track_id "
      "ORDER BY dur, id DESC) AS rk FROM slice) WHERE rk <= %s ORDER BY track_id DESC, rk",
      "SELECT utid, name, dur FROM (SELECT utid, name, dur, row_number() OVER (PARTITION BY utid "
      "ORDER BY dur DESC, id) AS rn FROM thread_slice) WHERE rn < %s ORDER BY utid, rn",
      "SELECT parent_id, id FROM (SELECT parent_id, id, rank() OVER (PARTITION BY parent_id "
      "ORDER BY depth DESC, ts, id) AS rn FROM slice) WHERE rn < %s ORDER BY parent_id DESC, rn",
  };
  static const char *const more[] = {"2", "3", "4", "10000"};
  for (size_t i = 0; i < 2; i++)
    for (size_t j = 0; j < sizeof ns / sizeof *ns; j++)
      same(p, family[i], ns[j], 1);
  for (size_t i = 2; i < 4; i++)
    for (size_t j = 0; j < sizeof more / sizeof *more; j++)
      same(p, family[i], more[j], 1);
  same(p, family[2], "1", 0); /* rn < 1: nothing to keep */
  static const char *const one[] = {
      "SELECT utid, name, dur FROM (SELECT utid, name, dur, row_number() OVER (PARTITION BY utid "
      "ORDER BY dur DESC, id) AS rn FROM thread_slice) WHERE rn = %s ORDER BY utid",
      "SELECT utid, name, rn FROM (SELECT utid, name, dense_rank() OVER (PARTITION BY utid "
      "ORDER BY dur, id) AS rn FROM thread_slice) WHERE rn = %s ORDER BY utid DESC, rn",
      "SELECT parent_id, id FROM (SELECT parent_id, id, row_number() OVER (PARTITION BY parent_id "
      "ORDER BY dur DESC, id) AS rn FROM slice) WHERE rn <= %s ORDER BY parent_id DESC",
      "SELECT upid, tid FROM (SELECT upid, tid, rank() OVER (PARTITION BY upid ORDER BY "
      "is_main_thread DESC, id) AS rn FROM thread) WHERE rn < %s ORDER BY upid",
  };
  same(p, one[0], "1", 1);
  same(p, one[1], "1", 1);
  same(p, one[2], "1", 1);
  same(p, one[3], "2", 1);
  /* Left to SQLite: rn = 2 (one row a group, but not the first), the order by the partition
  ** alone over several rows a group, ties under rank() (no id), another window function. */
  same(p, one[0], "2", 0);
  same(p, one[2], "2", 0);
  same(p, one[3], "3", 0);
  same(p,
       "SELECT utid, dur, rn FROM (SELECT utid, dur, rank() OVER (PARTITION BY utid "
       "ORDER BY dur DESC) AS rn FROM thread_slice) WHERE rn <= %s ORDER BY utid, rn, dur",
       "2", 0);
  same(p,
       "SELECT utid, dur FROM (SELECT utid, dur, ntile(2) OVER (PARTITION BY utid "
       "ORDER BY dur DESC, id) AS rn FROM thread_slice) WHERE rn <= %s ORDER BY utid, rn",
       "1", 0);
  assert_int_equal(rewritten(p, "SELECT utid FROM (SELECT utid, id, row_number() OVER (PARTITION "
                                "BY utid ORDER BY dur, id) AS rn FROM thread_slice) WHERE rn <= 0 "
                                "ORDER BY utid, rn"),
                   0);
  trak_processor_free(p);
}

/* The function itself refuses what it can't answer. */
static void arguments(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  assert_string_equal(sc_rows(p, "SELECT __top_id, __top_rn FROM __intrinsic_top_per_group("
                                 "'slice', 'track_id', 'dur DESC,id', 1) ORDER BY __top_id"),
                      sc_rows(p, "SELECT id, 1 FROM (SELECT id, row_number() OVER (PARTITION BY "
                                 "track_id ORDER BY dur DESC, id) AS rn FROM slice) WHERE rn = 1 "
                                 "ORDER BY id"));
  static const char *const bad[] = {
      "'nosuch', 'track_id', 'id', 1",         "'slice', 'name', 'id', 1",
      "'slice', 'track_id', 'name', 1",        "'slice', 'track_id', 'id', 0",
      "'slice', 'track_id', 'id', 10001",      "'slice', 'track_id', 'id', '3'",
      "'slice', 'track_id', 'id UP', 1",       "'slice', 'track_id', 'a,b,c,d', 1",
      "'slice', 'track_id', 'id', 1, 'dur>3'", "'slice', 'track_id', '', 1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT * FROM __intrinsic_top_per_group(%s)", bad[i]);
    assert_non_null(strstr(sc_error(p, sql), "__intrinsic_top_per_group"));
  }
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(shapes),
      cmocka_unit_test(arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
