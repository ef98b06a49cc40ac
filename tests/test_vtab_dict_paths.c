/*
** Tests of the scan paths on the one-byte dictionary columns (storage.h's trak_dict8: sched
** slices' end_state, ucpu and priority, thread states' state, ftrace events' name, ucpu and
** common_flags): every filter gives the rows plain SQLite gives on a copy of the same data, on
** the data sets of test_vtab_paths (support/vtab_paths.h): some rows, none, and rows appended
** out of order.
*/
#include "vtab_paths.h"

/* The dictionary columns' tables (hidden from SELECT *, so not in the $ copies) with their
** plain copies of every column: `@ss`, `@ts`, `@fe` in a query stand for one or the other. */
static const char *const dict_tables[][3] = {
    {"@ss", "__intrinsic_sched_slice", "id, ts, dur, utid, end_state, ucpu, priority"},
    {"@ts", "__intrinsic_thread_state", "id, ts, utid, dur, state"},
    {"@fe", "__intrinsic_ftrace_event", "id, ts, utid, name, ucpu, common_flags"}};
#define NDICT_TABLES (sizeof dict_tables / sizeof *dict_tables)

/* Makes the plain copies "x_<table>" of dict_tables. */
static void dict_copies(sqlite3 *db) {
  for (size_t i = 0; i < NDICT_TABLES; i++) {
    char *sql = sqlite3_mprintf("CREATE TABLE IF NOT EXISTS \"x_%s\" AS SELECT %s FROM %s",
                                dict_tables[i][1], dict_tables[i][2], dict_tables[i][1]);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_free(sql);
  }
}

/* check_pair of `sql` with each @table replaced by the table and by its plain copy. */
static void dict_check(fixture *f, const char *sql) {
  char *q[2];
  for (int plain = 0; plain < 2; plain++) {
    size_t n = 0;
    q[plain] = malloc(strlen(sql) * 3 + 64);
    for (const char *p = sql; *p;) {
      size_t i = 0;
      while (i < NDICT_TABLES && strncmp(p, dict_tables[i][0], 3))
        i++;
      if (i == NDICT_TABLES) {
        q[plain][n++] = *p++;
        continue;
      }
      n += (size_t)sprintf(q[plain] + n, plain ? "\"x_%s\"" : "%s", dict_tables[i][1]);
      p += 3;
    }
    q[plain][n] = 0;
  }
  check_pair(f, q[0], q[1]);
  free(q[0]), free(q[1]);
}

/* Filters on the one-byte dictionary columns (answered per code, rows past the 254 codes by
** value) against plain SQLite: every operator with every constant, NULL tests and IN lists on
** each column; then several at once, with other columns, values in the side map (priority 150,
** common_flags 299), INT32_MIN, text that reads as a number, chained text predicates on one
** column, joins and aggregates over them. */
static void test_dict_filters(void **state) {
  fixture *f = *state;
  dict_copies(f->db);
  static const char *const cols[][2] = {
      {"@ss", "end_state"}, {"@ss", "ucpu"}, {"@ss", "priority"},    {"@ts", "state"},
      {"@fe", "name"},      {"@fe", "ucpu"}, {"@fe", "common_flags"}};
  char sql[1024];
  for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
    for (size_t o = 0; o < NOPS; o++)
      for (size_t v = o % f->stride; v < NVALUES; v += f->stride) {
        snprintf(sql, sizeof sql, "SELECT id, %s FROM %s WHERE %s %s %s", cols[c][1], cols[c][0],
                 cols[c][1], ops[o], values[v]);
        dict_check(f, sql);
      }
    static const char *const shapes[] = {
        "SELECT id FROM %s WHERE %s IS NULL",
        "SELECT id FROM %s WHERE %s IS NOT NULL",
        "SELECT id FROM %s WHERE %s IN (NULL, 0, 2, '3', 7.0, 5.5, 'a', 'Task', x'00', 150, 299)",
        "SELECT id FROM %s WHERE %s NOT IN (1, 2, 'b') ORDER BY id DESC LIMIT 9",
        "SELECT id FROM %s WHERE %s = 'a' COLLATE NOCASE",
        "SELECT id FROM %s WHERE %s LIKE 'T%%'",
        "SELECT id FROM %s WHERE %s GLOB '[a-t]*' ORDER BY id DESC"};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
      snprintf(sql, sizeof sql, shapes[k], cols[c][0], cols[c][1]);
      dict_check(f, sql);
    }
  }
  static const char *const queries[] = {
      "SELECT id FROM @ss WHERE ucpu = 1 AND priority > 0",
      "SELECT ts, dur FROM @ss WHERE ucpu = '1' ORDER BY ts",
      "SELECT id FROM @ss WHERE priority IN (150, 299, -100, 5)",
      "SELECT id, priority FROM @ss WHERE priority = 150 ORDER BY id DESC",
      "SELECT id FROM @ss WHERE priority = -2147483648",
      "SELECT id FROM @ss WHERE priority BETWEEN 140 AND 160 AND utid = 2",
      "SELECT id FROM @ss WHERE end_state IS NULL AND ucpu != 7",
      "SELECT id FROM @ss WHERE end_state = 'Task' AND ucpu IN (1, 2)",
      "SELECT count(*), sum(dur) FROM @ss WHERE ucpu = 3",
      "SELECT ucpu, count(*) FROM @ss WHERE priority < 0 GROUP BY ucpu",
      "SELECT id FROM @ts WHERE state = 'a' AND utid = 3",
      "SELECT id FROM @ts WHERE state IN ('a', 'b', 'zzz', 3)",
      "SELECT id FROM @ts WHERE state LIKE 'T%' AND state GLOB '*a*'",
      "SELECT id FROM @ts WHERE state > 'a' AND state < 'x'",
      "SELECT id FROM @ts WHERE state = 'never seen'",
      "SELECT id FROM @fe WHERE common_flags >= 250 AND ucpu = 5",
      "SELECT id FROM @fe WHERE name = 'abc' AND ucpu IN (0, 5)",
      "SELECT id FROM @fe WHERE name IS NOT NULL AND common_flags = 2",
      ("SELECT s.id, e.id FROM @ss s JOIN @fe e ON e.ucpu = s.ucpu AND e.common_flags = s.priority "
       "WHERE s.id < 60"), /* one query (clang's -Wstring-concatenation asks for the parentheses) */
      "SELECT s.id FROM @ss s WHERE s.ucpu IN (SELECT ucpu FROM @fe WHERE name = 'a')",
  };
  for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
    dict_check(f, queries[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_dict_filters, setup_rows, teardown),
      cmocka_unit_test_setup_teardown(test_dict_filters, setup_empty, teardown),
      cmocka_unit_test_setup_teardown(test_dict_filters, setup_unsorted, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
