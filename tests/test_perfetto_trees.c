/*
** Tests of std.trees.table_conversion: _tree_from_table! and _tree_to_table! give the rows
** parents first with _tree_id and _tree_parent_id, the chosen columns by name (REAL columns as
** REALs), and name duplicate ids and unknown parents. Answers checked against Perfetto's
** trace_processor_shell (its own tests for the module, and the out-of-order case below).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"

static trak_processor *p;

static int setup(void **state) {
  (void)state;
  p = sc_open("{\"traceEvents\":[]}");
  sc_rows(p, "INCLUDE PERFETTO MODULE std.trees.table_conversion");
  return 0;
}
static int teardown(void **state) {
  (void)state;
  trak_processor_free(p);
  return 0;
}

static void roundtrip(void **state) {
  (void)state;
  /* A child before its parent comes after it; columns by name, in the order asked. */
  assert_string_equal(
      sc_rows(p, "SELECT * FROM _tree_to_table!(_tree_from_table!((SELECT 3 AS id, 2 AS "
                 "parent_id, 'c' AS name, 1.5 AS x UNION ALL SELECT 1, NULL, 'a', 2 UNION ALL "
                 "SELECT 2, 1, 'b', NULL UNION ALL SELECT 4, 1, 'd', 7), (name, x)), (x, name))"),
      "0|NULL|1|NULL|2.0|a\n1|0|2|1|NULL|b\n2|1|3|2|1.5|c\n3|0|4|1|7.0|d");
  /* A forest, sparse 64-bit ids. */
  assert_string_equal(
      sc_rows(p, "SELECT _tree_id, _tree_parent_id, id, parent_id, k FROM _tree_to_table!("
                 "_tree_from_table!((SELECT -10 AS id, NULL AS parent_id, 1 AS k UNION ALL "
                 "SELECT 10000000000, -10, 2 UNION ALL SELECT 5, NULL, 3), (k)), (k))"),
      "0|NULL|-10|NULL|1\n1|0|10000000000|-10|2\n2|NULL|5|NULL|3");
}

static void errors(void **state) {
  (void)state;
  assert_non_null(strstr(sc_error(p, "SELECT * FROM _tree_to_table!(_tree_from_table!((SELECT 1 "
                                     "AS id, NULL AS parent_id, 'a' AS k UNION ALL SELECT 1, NULL, "
                                     "'b'), (k)), (k))"),
                         "tree: duplicate id 1"));
  assert_non_null(strstr(sc_error(p, "SELECT * FROM _tree_to_table!(_tree_from_table!((SELECT 1 "
                                     "AS id, 5 AS parent_id, 'a' AS k), (k)), (k))"),
                         "tree: parent_id not found in id column"));
  assert_non_null(strstr(sc_error(p, "SELECT * FROM _tree_to_table!(_tree_from_table!((SELECT 1 "
                                     "AS id, NULL AS parent_id, 2 AS a), (a)), (b))"),
                         "tree: column 'b' is not in the tree"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(roundtrip),
      cmocka_unit_test(errors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
