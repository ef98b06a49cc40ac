/*
** Tests of the flamegraph operator, __intrinsic_flamegraph with __intrinsic_flamegraph_config
** and __intrinsic_flamegraph_find: merging, the four views, the three filters, grouping,
** aggregates, several value columns, the super root and the errors. Every answer was compared
** with Perfetto's trace_processor_shell on the same query.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"

static trak_processor *p;

/* A source out of order (a child before its parent) with REAL values and a grouping column. */
static const char SOURCE[] =
    "CREATE VIRTUAL TABLE IF NOT EXISTS mixed USING __intrinsic_flamegraph(("
    "SELECT 3 AS id, 2 AS parent_id, 'c' AS name, 4.5 AS value, 'g1' AS g "
    "UNION ALL SELECT 1, NULL, 'main', 1, NULL UNION ALL SELECT 2, 1, 'b', 2, 'g1' "
    "UNION ALL SELECT 4, 1, 'c', 3, 'g2' UNION ALL SELECT 5, 4, 'b', 1.5, 'g1' "
    "UNION ALL SELECT 6, 5, 'c', 2, 'g1' UNION ALL SELECT 7, NULL, 'other', 0, NULL));";

static int setup(void **state) {
  (void)state;
  p = sc_open("{\"traceEvents\":[]}");
  sc_rows(p, SOURCE);
  sc_rows(p, "CREATE VIRTUAL TABLE simple USING __intrinsic_flamegraph(("
             "SELECT 1 AS id, NULL AS parent_id, 'main' AS name, 1 AS value, 2 AS s "
             "UNION ALL SELECT 2, 1, 'a', 2, 5 UNION ALL SELECT 3, 1, 'a', 3, 7 "
             "UNION ALL SELECT 4, 2, 'b', 4, NULL))");
  return 0;
}
static int teardown(void **state) {
  (void)state;
  trak_processor_free(p);
  return 0;
}

static void top_down_and_bottom_up(void **state) {
  (void)state;
  /* The two 'a' children merge; layout is breadth first, widest first. */
  assert_string_equal(
      sc_rows(p, "SELECT _tree_id, _tree_parent_id, name, depth, self_value, cumulative_value, "
                 "parent_cumulative_value, x_start, x_end FROM simple("
                 "__intrinsic_flamegraph_config('value', 'value', 'view', 'TOP_DOWN'))"),
      "0|NULL|main|1|1|10|NULL|0|10\n1|0|a|2|5|9|10|0|9\n2|1|b|3|4|4|9|0|4");
  assert_string_equal(
      sc_rows(p, "SELECT name, depth, self_value, cumulative_value, x_start, x_end FROM simple("
                 "__intrinsic_flamegraph_config('value', 'value', 'view', 'BOTTOM_UP'))"),
      "a|-1|5|5|0|5\nb|-1|4|4|5|9\nmain|-1|1|1|9|10\nmain|-2|0|5|0|5\na|-2|0|4|5|9\n"
      "main|-3|0|4|5|9");
}

static void pivot_and_from_frame(void **state) {
  (void)state;
  assert_string_equal(
      sc_rows(p, "SELECT _tree_parent_id, name, depth, self_value, cumulative_value, x_start "
                 "FROM mixed(__intrinsic_flamegraph_config('value', 'value', 'view', 'PIVOT', "
                 "'view_pattern', 'c', ''))"),
      "NULL|c|1|9.5|11.0|0.0\nNULL|c|-1|11.0|11.0|0.0\n0|b|2|1.5|1.5|0.0\n"
      "1|b|-2|0.0|6.5|0.0\n1|main|-2|0.0|4.5|6.5\n3|main|-3|0.0|4.5|0.0\n"
      "3|c|-3|0.0|2.0|4.5\n6|main|-4|0.0|2.0|4.5");
  /* Case-insensitive pattern; a frame is its name and its grouping columns. */
  assert_string_equal(
      sc_rows(p, "SELECT name, depth, self_value, cumulative_value, g FROM mixed("
                 "__intrinsic_flamegraph_config('value', 'value', 'view', 'FROM_FRAME', "
                 "'view_pattern', 'B', 'i', 'grouping', 'g'))"),
      "b|1|3.5|10.0|g1\nc|2|6.5|6.5|g1");
}

static void filters_and_aggregates(void **state) {
  (void)state;
  /* Both SHOW_STACK filters must match on the path (g2 through the grouping column). */
  assert_string_equal(
      sc_rows(p, "SELECT name, depth, cumulative_value FROM mixed(__intrinsic_flamegraph_config("
                 "'value', 'value', 'view', 'BOTTOM_UP', 'filter', 'SHOW_STACK', 'b', '', "
                 "'filter', 'SHOW_STACK', 'g2', '', 'grouping', 'g'))"),
      "c|-1|2.0\nb|-1|1.5\nb|-2|2.0\nc|-2|1.5\nc|-3|2.0\nmain|-3|1.5\nmain|-4|2.0");
  /* HIDE_FRAME folds b into its parent; ONE_OR_SUMMARY counts the distinct values. */
  assert_string_equal(
      sc_rows(p, "SELECT name, self_value, cumulative_value, g FROM mixed("
                 "__intrinsic_flamegraph_config('value', 'value', 'view', 'TOP_DOWN', "
                 "'filter', 'HIDE_FRAME', '^b$', '', 'aggregate', 'ONE_OR_SUMMARY', 'g', 'g'))"),
      "main|3.0|14.0|g1\nc|9.0|11.0|g1 and 2 others\nc|2.0|2.0|g1");
  /* HIDE_STACK drops b's stack; SUM and CONCAT_WITH_COMMA over the rest. */
  assert_string_equal(
      sc_rows(p, "SELECT name, cumulative_value, s FROM simple(__intrinsic_flamegraph_config("
                 "'value', 'value', 'view', 'TOP_DOWN', 'filter', 'HIDE_STACK', '^b$', '', "
                 "'aggregate', 'CONCAT_WITH_COMMA', 's', 's'))"),
      "main|6|2\na|5|5,7");
  /* A second value column gives self_/cumulative_ of it; the first sets the layout. */
  assert_string_equal(sc_rows(p, "SELECT name, cumulative_value, self_s, cumulative_s FROM simple("
                                 "__intrinsic_flamegraph_config('value', 'value', 'value', 's'))"),
                      "main|10|2|14\na|9|12|12\nb|4|0|0");
}

static void super_root_and_errors(void **state) {
  (void)state;
  assert_string_equal(
      sc_rows(p, "SELECT _tree_id, _tree_parent_id, depth, name, cumulative_value FROM simple("
                 "__intrinsic_flamegraph_config('value', 'value')) "
                 "WHERE __intrinsic_flamegraph_find(_tree_id, 'SUPER_ROOT')"),
      "0|NULL|0|NULL|10.0");
  sc_rows(p, "CREATE VIRTUAL TABLE negative USING __intrinsic_flamegraph(("
             "SELECT 1 AS id, NULL AS parent_id, 'main' AS name, -1 AS value))");
  assert_non_null(strstr(sc_error(p, "SELECT * FROM negative(__intrinsic_flamegraph_config("
                                     "'value', 'value'))"),
                         "flamegraph: value columns must be non-negative"));
  assert_non_null(strstr(sc_error(p, "SELECT __intrinsic_flamegraph_config('view', 'PIVOT')"),
                         "PIVOT and FROM_FRAME require a view pattern"));
  assert_non_null(strstr(sc_error(p, "SELECT __intrinsic_flamegraph_config('view', 'SIDEWAYS')"),
                         "unknown value 'SIDEWAYS'"));
  assert_non_null(strstr(sc_error(p, "SELECT * FROM simple(__intrinsic_flamegraph_config("
                                     "'value', 'nope'))"),
                         "value column 'nope' does not exist"));
  assert_non_null(strstr(sc_error(p, "CREATE VIRTUAL TABLE bad USING __intrinsic_flamegraph(("
                                     "SELECT 1 AS id, 2 AS parent_id, 'x' AS name, 1 AS value))"),
                         "parent_id not found in id column"));
  assert_non_null(strstr(sc_error(p, "CREATE VIRTUAL TABLE bad USING __intrinsic_flamegraph(("
                                     "SELECT 1 AS id, 1 AS parent_id, 'x' AS name, 1 AS value))"),
                         "cycle"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(top_down_and_bottom_up),
      cmocka_unit_test(pivot_and_from_frame),
      cmocka_unit_test(filters_and_aggregates),
      cmocka_unit_test(super_root_and_errors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
