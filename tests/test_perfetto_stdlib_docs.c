/*
** Tests of __intrinsic_stdlib_objects, the catalogue of trak's modules: a row per module and
** per object, kinds, internal names, descriptions, arguments, columns and the searchable
** summary, read from the doc comments of the module files (time.conversion has them). The
** shape of each row was checked against Perfetto's trace_processor_shell.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"

static void modules_and_kinds(void **state) {
  trak_processor *p = *state;
  assert_string_equal(sc_rows(p, "SELECT module, package, qualified_name, exposed FROM "
                                 "__intrinsic_stdlib_objects WHERE object_type = 'MODULE' AND "
                                 "module IN ('slices.hierarchy', 'time.conversion') ORDER BY 1"),
                      "slices.hierarchy|slices|slices.hierarchy|1\n"
                      "time.conversion|time|time.conversion|1");
  /* The prelude is not a module users include. */
  assert_string_equal(
      sc_rows(p, "SELECT count(*) FROM __intrinsic_stdlib_objects WHERE module GLOB 'prelude*'"),
      "0");
  assert_string_equal(sc_rows(p, "SELECT group_concat(object_type, ',') FROM (SELECT DISTINCT "
                                 "object_type FROM __intrinsic_stdlib_objects ORDER BY 1)"),
                      "FUNCTION,MACRO,MODULE,TABLE,TABLE_FUNCTION,VIEW");
  assert_string_equal(sc_rows(p, "SELECT object_type, return_type, exposed FROM "
                                 "__intrinsic_stdlib_objects WHERE qualified_name = "
                                 "'slices.hierarchy._slice_ancestor_and_self'"),
                      "TABLE_FUNCTION|TABLE|0");
  assert_string_equal(sc_rows(p, "SELECT object_type, exposed FROM __intrinsic_stdlib_objects "
                                 "WHERE module = 'slices.flat_slices' AND name = "
                                 "'_slice_flattened'"),
                      "TABLE|0");
}

static void documentation(void **state) {
  trak_processor *p = *state;
  assert_string_equal(sc_rows(p,
                              "SELECT short_description, return_type, return_description, "
                              "a.value ->> 'name', a.value ->> 'type', a.value ->> 'description' "
                              "FROM __intrinsic_stdlib_objects AS o, json_each(o.args) AS a "
                              "WHERE o.qualified_name = 'time.conversion.time_from_ms'"),
                      "A count of milliseconds as a duration in nanoseconds.|TIMESTAMP|"
                      "The same span in nanoseconds.|millis|LONG|The number of milliseconds.");
  assert_string_equal(sc_rows(p, "SELECT c.value ->> 'type' FROM __intrinsic_stdlib_objects AS "
                                 "o, json_each(o.cols) AS c WHERE o.qualified_name = "
                                 "'slices.with_context.thread_slice' AND c.value ->> 'name' = "
                                 "'tid'"),
                      "LONG");
  /* The descriptions Perfetto's StdlibDocs diff tests read, as trace_processor_shell v58.2
  ** gives them. */
  assert_string_equal(sc_rows(p, "SELECT return_description FROM __intrinsic_stdlib_objects "
                                 "WHERE qualified_name = 'time.conversion.time_from_ns'"),
                      "Time duration in nanoseconds.");
  assert_string_equal(sc_rows(p, "SELECT o.object_type, o.short_description, c.value ->> "
                                 "'description' FROM __intrinsic_stdlib_objects AS o, "
                                 "json_each(o.cols) AS c WHERE o.qualified_name = "
                                 "'slices.with_context.thread_slice' AND c.value ->> 'name' = "
                                 "'tid'"),
                      "VIEW|All thread slices with data about thread, thread track and process.|"
                      "Alias for `thread.tid`.");
  assert_string_equal(sc_rows(p, "SELECT o.return_type, o.exposed, a.value ->> 'name', a.value "
                                 "->> 'type' FROM __intrinsic_stdlib_objects AS o, "
                                 "json_each(o.args) AS a WHERE o.qualified_name = "
                                 "'intervals.intersect._ii_df_agg' ORDER BY 3"),
                      "_ProjectionFragment|0|x|ColumnName\n_ProjectionFragment|0|y|ColumnName");
  assert_string_equal(
      sc_rows(p, "SELECT summary FROM __intrinsic_stdlib_objects WHERE qualified_name = "
                 "'time.conversion.time_to_ms'"),
      "Package: time\nModule: time.conversion\nName: time_to_ms\n"
      "Qualified name: time.conversion.time_to_ms\n"
      "Search aliases: time time conversion time to ms\nKind: public FUNCTION\n"
      "Description: A duration in nanoseconds as whole milliseconds, the remainder dropped.\n"
      "Arguments:\n- nanos (TIMESTAMP): The duration in nanoseconds.\n"
      "Returns: LONG: The number of whole milliseconds.");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(modules_and_kinds),
      cmocka_unit_test(documentation),
  };
  return cmocka_run_group_tests(tests, sc_setup_empty, sc_teardown);
}
