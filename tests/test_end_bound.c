/*
** Tests of the ts lower bound for `ts + dur > x` over slices (sql/perfetto_sql/end_bound.c and
** __intrinsic_ts_floor in tables/vtab_aggregate.c): the statement prepared with the bound answers
** what SQLite answers for the statement itself (rows, types, column names), for x at every
** boundary (an end equal to x, unfinished slices with dur -1, zero-length slices, NULL, reals,
** text, the int64 limits, an end near the int64 limit), and the shapes that must stay SQLite's are left;
** the remembered MAX(dur) follows appended and rolled-back slices.
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

/* Two threads: nested and zero-length slices, an unfinished one (dur -1), a long one; a third
** thread whose slice ends near the int64 limit (9.2e18 ns; an end past it makes trace_bounds'
** own sum overflow, prelude.c's bounds_widen). */
static const char TRACE[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":10,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":5,\"name\":\"B\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":0,\"name\":\"C\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":12,\"dur\":3,\"name\":\"D\"},"
    "{\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":20,\"name\":\"open\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":1,\"dur\":100,\"name\":\"L\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":150,\"dur\":1,\"name\":\"S\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":4,\"ts\":4600000000000000,\"dur\":4600000000000000,"
    "\"name\":\"H\"}"
    "]}";

/* `sql` is given the bound (or not: `expect`) and then answers, with the same column names,
** rows and types, what SQLite answers for `sql` itself. */
static void same(trak_processor *p, const char *sql, int expect) {
  sc_rewrite_same(p, sql, expect, trak__psql_end_bound, "__intrinsic_ts_floor");
}

static void bounds(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  static const char *const xs[] = {"0",
                                   "1",
                                   "3",
                                   "4",
                                   "6",
                                   "7",
                                   "11",
                                   "12",
                                   "15",
                                   "16",
                                   "19",
                                   "20",
                                   "21",
                                   "100",
                                   "101",
                                   "150",
                                   "151",
                                   "1000",
                                   "-1",
                                   "NULL",
                                   "3.5",
                                   "10.999",
                                   "11.0",
                                   "'5'",
                                   "'abc'",
                                   "x'00'",
                                   "9223372036854775807",
                                   "-9223372036854775808",
                                   "9.3e18",
                                   "1e300",
                                   "-1e300",
                                   "10000000000000000000",
                                   "(SELECT MAX(ts) FROM slice)",
                                   "(SELECT NULL)",
                                   "7 + 4",
                                   "3 * 5",
                                   "(SELECT MAX(ts) / 2 FROM slice WHERE dur < 100)"};
  static const char *const shapes[] = {
      "SELECT id, ts, dur FROM slice WHERE ts + dur > %s ORDER BY id",
      "SELECT id, ts, dur FROM slice WHERE ts + dur >= %s ORDER BY id",
      "SELECT COUNT(*), SUM(dur) FROM slice WHERE depth = 0 AND ts + dur > %s",
      "SELECT COUNT(*), SUM(dur) FROM slice WHERE track_id = (SELECT tt.id FROM thread_track tt "
      "JOIN thread USING (utid) WHERE tid = 2) AND ts < 15 AND ts + dur > %s",
      "SELECT name FROM slice WHERE ts + dur > %s AND ts <= 12 ORDER BY ts, id LIMIT 3",
      "SELECT track_id, COUNT(*) FROM slice WHERE ts + dur > %s GROUP BY track_id ORDER BY 1"};
  char sql[512];
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (size_t x = 0; x < sizeof xs / sizeof *xs; x++) {
      snprintf(sql, sizeof sql, shapes[s], xs[x]);
      same(p, sql, 1);
    }
  /* Left to SQLite: OR, the term in parentheses or under NOT, BETWEEN, CASE, parameters,
  ** volatile functions, an alias, a join, another order of the operands, a comparison in x. */
  static const char *const refused[] = {
      "SELECT COUNT(*) FROM slice WHERE ts + dur > 5 OR depth = 1",
      "SELECT COUNT(*) FROM slice WHERE (ts + dur > 5)",
      "SELECT COUNT(*) FROM slice WHERE NOT ts + dur > 5",
      "SELECT COUNT(*) FROM slice WHERE depth BETWEEN 0 AND ts + dur > 5",
      "SELECT COUNT(*) FROM slice WHERE CASE WHEN 1 AND ts + dur > 5 THEN 1 END",
      "SELECT COUNT(*) FROM slice WHERE ts + dur > ?",
      "SELECT COUNT(*) FROM slice WHERE ts + dur > :x",
      "SELECT COUNT(*) FROM slice WHERE ts + dur > random() % 10",
      "SELECT COUNT(*) FROM slice s WHERE ts + dur > 5",
      "SELECT COUNT(*) FROM slice, thread WHERE ts + dur > 5",
      "SELECT COUNT(*) FROM slice WHERE dur + ts > 5",
      "SELECT COUNT(*) FROM slice WHERE ts + dur > 5 = 1",
      "SELECT COUNT(*) FROM slice WHERE ts + dur > 5 IS NOT NULL",
      "SELECT COUNT(*) FROM slice WHERE ts + dur + 1 > 5",
      "SELECT COUNT(*) FROM slice WHERE ts + dur < 5",
      "SELECT COUNT(*) FROM thread_slice WHERE ts + dur > 5",
      "SELECT COUNT(*) FROM slice WHERE ts + dur > 5 UNION SELECT 1",
      "SELECT COUNT(*) FROM slice WHERE ts + dur > 5 HAVING COUNT(*) > 0"};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
    same(p, refused[i], 0);
  /* A temporary table named slice hides the trace's: its rows are not bounded by the trace's
  ** durations (a long one there would be lost). */
  sc_rows(p, "CREATE TEMP TABLE slice(ts INT, dur INT); INSERT INTO slice VALUES (1, 1000)");
  same(p, "SELECT COUNT(*) FROM slice WHERE ts + dur > 500", 0);
  assert_string_equal(sc_rows(p, "SELECT COUNT(*) FROM slice WHERE ts + dur > 500"), "1");
  sc_rows(p, "DROP TABLE temp.slice");
  same(p, "SELECT COUNT(*) FROM slice WHERE ts + dur > 500", 1);
  trak_processor_free(p);
}

/* The bound itself: x - MAX(dur), none (INT64_MIN) for a non-integer x or an overflow, NULL for
** NULL; an error for a table without a dur column. */
static void floor_values(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_ts_floor('slice', 5000000000000000001)"),
                      "400000000000000001");
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_ts_floor('slice', 3.5)"),
                      "-9223372036854775808");
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_ts_floor('slice', -9223372036854775807)"),
                      "-9223372036854775808");
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_ts_floor('slice', NULL) IS NULL"), "1");
  assert_non_null(strstr(sc_error(p, "SELECT __intrinsic_ts_floor('thread', 1)"), "dur column"));
  trak_processor_free(p);
}

/* The greatest dur is remembered between calls, and read again when the slices change: rows
** appended (a new generation of the tables, or only more rows) or rolled back. */
static void floor_follows_changes(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  trak_tables *t = &p->tables;
  const char *q = "SELECT __intrinsic_ts_floor('slice', 5000000000000000001)";
  assert_string_equal(sc_rows(p, q), "400000000000000001"); /* MAX(dur) 4.6e18 (H) */
  assert_string_equal(sc_rows(p, q), "400000000000000001");
  size_t n = t->slice.n;
  t->generation++; /* as annotations.c appends: a longer slice */
  uint32_t s = trak__slice_add(t, 5, t->slice.track_id[0], 0, 0, 0, TRAK_NULL_U32, TRAK_NULL_U32);
  t->slice.dur[s] = 4700000000000000000;
  assert_string_equal(sc_rows(p, q), "300000000000000001");
  t->slice.n = n, t->generation++; /* rolled back, as metrics.c's model_rollback does */
  assert_string_equal(sc_rows(p, q), "400000000000000001");
  s = trak__slice_add(t, 5, t->slice.track_id[0], 0, 0, 0, TRAK_NULL_U32, TRAK_NULL_U32);
  t->slice.dur[s] = 4800000000000000000; /* a row more in the same generation */
  assert_string_equal(sc_rows(p, q), "200000000000000001");
  /* And the bounded statement answers with it, as SQLite does without the bound. */
  same(p, "SELECT COUNT(*), SUM(dur) FROM slice WHERE ts + dur > 4000000000000000000", 1);
  assert_string_equal(sc_rows(p, "SELECT COUNT(*) FROM slice WHERE ts + dur > 4000000000000000000"),
                      "2"); /* H (4.6e18 + 4.6e18) and the new row */
  trak_processor_free(p);
}

/* With ts sorted, the bound reads only the durations of the rows before x, more of them as a
** later call asks (and keeps the greatest read: a lower bound is still one). */
static void floor_prefix(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  /* rows by ts: A 1000 (dur 10000), L 1000 (100000), B 2000 (5000), C 3000 (0), D 12000
  ** (3000), open 20000 (-1), S 150000 (1000), H 4.6e18 (4.6e18) */
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_ts_floor('slice', 1000)"), "1000");
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_ts_floor('slice', 1001)"), "-98999");
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_ts_floor('slice', 20000)"), "-80000");
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_ts_floor('slice', 1000)"), "-99000");
  /* H's duration (4.6e18 at 4.6e18) is read only for an x past its ts */
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_ts_floor('slice', 4600000000000000000)"),
                      "4599999999999900000");
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_ts_floor('slice', 4600000000000000001)"), "1");
  same(p, "SELECT COUNT(*), SUM(dur) FROM slice WHERE ts + dur > 1000", 1);
  trak_processor_free(p);
  /* Only unfinished slices before x: the bound is x itself. */
  p = sc_open("{\"traceEvents\":[{\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":1,\"name\":\"a\"},"
              "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":5,\"dur\":9,\"name\":\"b\"}]}");
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_ts_floor('slice', 2000)"), "2000");
  same(p, "SELECT COUNT(*) FROM slice WHERE ts + dur > 999", 1);
  same(p, "SELECT COUNT(*) FROM slice WHERE ts + dur >= 999", 1);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(bounds), cmocka_unit_test(floor_values),
                                     cmocka_unit_test(floor_follows_changes),
                                     cmocka_unit_test(floor_prefix)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
