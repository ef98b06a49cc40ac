/*
** Tests of the older PerfettoSQL forms and the prelude functions Perfetto's syntax and prelude
** tests use: SELECT create_function / create_view_function / IMPORT / EXPERIMENTAL_MEMOIZE,
** CREATE PERFETTO FUNCTION ... DELEGATES TO (variadic too), INCLUDE PERFETTO MODULE *,
** __intrinsic_stringify!, HASH, the window functions LAST_NON_NULL, FIRST_NON_NULL and
** INTERNAL_LAYOUT, regexp_extract, unhex, regexp_replace_simple, the extract_metadata family
** pointers in __intrinsic_arg_set_to_json, perfetto_table_info and __intrinsic_zstd_compress
** (whose frames the zstd tool decoded when this was written). Each answer was checked against
** Perfetto's
** trace_processor_shell on the same query.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"

static void legacy_create_function(void **state) {
  trak_processor *p = *state;
  assert_string_equal(sc_rows(p, "SELECT create_function('lf(x INT)', 'INT', 'SELECT $x + 1');"
                                 "SELECT lf(5)"),
                      "6");
  /* Defining it again replaces it, as Perfetto allows. */
  assert_string_equal(sc_rows(p, "SELECT create_function('lf(x INT)', 'STRING', "
                                 "'SELECT ''value_'' || $x'); SELECT lf(5)"),
                      "value_5");
  assert_string_equal(sc_rows(p, "SELECT create_view_function('lv(x INT)', 'result INT', "
                                 "'SELECT $x + 1 AS result'); SELECT * FROM lv(5)"),
                      "6");
  /* Wrong argument count: a clear error at the call. */
  assert_non_null(strstr(sc_error(p, "SELECT create_function('g()', 'INT')"),
                         "create_function takes 3 string arguments, not 2"));
  assert_non_null(strstr(sc_error(p, "SELECT RUN_METRIC('android/cpu_info.sql')"),
                         "RUN_METRIC: trak has no metrics to run ('android/cpu_info.sql')"));
  /* Not the statement form (a second column): plain SQL, where the function does not exist. */
  assert_non_null(
      strstr(sc_error(p, "SELECT create_function('g()', 'INT', 'SELECT 1'), 2"), "no such"));
}

static void memoize(void **state) {
  trak_processor *p = *state;
  /* 2^50 by doubling recursion: 2^50 calls without the cache. */
  assert_string_equal(sc_rows(p, "SELECT create_function('twice(x INT)', 'INT', "
                                 "'SELECT IIF($x = 0, 1, twice($x - 1) + twice($x - 1))');"
                                 "SELECT EXPERIMENTAL_MEMOIZE('twice'); SELECT twice(50)"),
                      "1125899906842624");
  /* NULL results are not kept: f(51) is NULL, f(50) 1. */
  assert_string_equal(sc_rows(p, "SELECT create_function('alt(x INT)', 'INT', "
                                 "'SELECT IIF($x = 0, 1, IIF(alt($x - 1) IS NULL, 1, NULL))');"
                                 "SELECT EXPERIMENTAL_MEMOIZE('alt'); SELECT alt(50), alt(51)"),
                      "1|NULL");
  assert_non_null(strstr(sc_error(p, "SELECT EXPERIMENTAL_MEMOIZE('nope')"), "no function 'nope'"));
}

static void delegates_to(void **state) {
  trak_processor *p = *state;
  assert_string_equal(sc_rows(p, "CREATE PERFETTO FUNCTION my_hash(args ANY...) RETURNS INT "
                                 "DELEGATES TO hash;"
                                 "SELECT my_hash(1, 'hello', 42), my_hash('single_arg'), "
                                 "my_hash(1, 2, 3, 4, 5)"),
                      "4730678220997103486|1309196097616646754|-6396149620914793052");
  assert_string_equal(sc_rows(p, "CREATE PERFETTO FUNCTION my_abs(x INT) RETURNS INT "
                                 "DELEGATES TO abs; SELECT my_abs(-3)"),
                      "3");
  /* HASH itself: FNV-1a; the empty string is the offset basis. */
  assert_string_equal(sc_rows(p, "SELECT hash(''), hash('a'), hash(1)"),
                      "-3750763034362895579|-5808556873153909620|-8517097267634966620");
}

static void include_and_stringify(void **state) {
  trak_processor *p = *state;
  assert_string_equal(
      sc_rows(p, "SELECT IMPORT('time.conversion');"
                 "INCLUDE PERFETTO MODULE time.conversion; SELECT time_to_ms(2000000)"),
      "2");
  assert_string_equal(sc_rows(p, "INCLUDE PERFETTO MODULE *; SELECT 1"), "1");
  /* As Perfetto: the text between quotes as written, so foo'' reads foo'. */
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_stringify!(foo'') UNION ALL "
                                 "SELECT __intrinsic_stringify!(bar())"),
                      "foo'\nbar()");
}

static void window_functions(void **state) {
  trak_processor *p = *state;
  sc_rows(p, "CREATE TABLE nn(id INTEGER, part TEXT, val INTEGER);"
             "INSERT INTO nn VALUES (1, 'A', 1), (2, 'A', NULL), (3, 'A', 3), (4, 'B', NULL),"
             "(5, 'B', 5), (6, 'B', NULL), (7, 'B', NULL)");
  assert_string_equal(sc_rows(p, "SELECT group_concat(ifnull(v, 'N'), ',') FROM (SELECT "
                                 "LAST_NON_NULL(val) OVER (ORDER BY id) AS v FROM nn ORDER BY id)"),
                      "1,1,3,3,5,5,5");
  assert_string_equal(sc_rows(p, "SELECT group_concat(ifnull(v, 'N'), ',') FROM (SELECT "
                                 "LAST_NON_NULL(val) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW "
                                 "AND 2 FOLLOWING) AS v FROM nn ORDER BY id)"),
                      "3,3,5,5,5,N,N");
  assert_string_equal(sc_rows(p, "SELECT group_concat(ifnull(v, 'N'), ',') FROM (SELECT "
                                 "LAST_NON_NULL(val) OVER (PARTITION BY part ORDER BY id) AS v "
                                 "FROM nn ORDER BY id)"),
                      "1,1,3,N,5,5,5");
  assert_string_equal(sc_rows(p, "SELECT group_concat(ifnull(v, 'N'), ',') FROM (SELECT "
                                 "FIRST_NON_NULL(val) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING "
                                 "AND CURRENT ROW) AS v FROM nn ORDER BY id)"),
                      "1,1,3,3,5,5,N");
  /* Perfetto's layout tests: lowest free depth; dur -1 never ends; instants end at their ts. */
  assert_string_equal(sc_rows(p, "WITH s(ts, dur) AS (VALUES (1, 4), (2, 2), (3, 5), (6, 1), "
                                 "(6, 1), (6, 1)) SELECT group_concat(d, ',') FROM (SELECT "
                                 "INTERNAL_LAYOUT(ts, dur) OVER (ORDER BY ts ROWS BETWEEN "
                                 "UNBOUNDED PRECEDING AND CURRENT ROW) AS d FROM s)"),
                      "0,1,2,0,1,3");
  assert_string_equal(sc_rows(p, "WITH s(ts, dur) AS (VALUES (1, -1), (2, -1), (3, 5), (4, 1), "
                                 "(5, 1)) SELECT group_concat(d, ',') FROM (SELECT "
                                 "INTERNAL_LAYOUT(ts, dur) OVER (ORDER BY ts ROWS BETWEEN "
                                 "UNBOUNDED PRECEDING AND CURRENT ROW) AS d FROM s)"),
                      "0,1,2,3,3");
  assert_string_equal(sc_rows(p, "WITH s(ts, dur) AS (VALUES (1, 4), (2, 0), (3, 0), (4, 0)) "
                                 "SELECT group_concat(d, ',') FROM (SELECT "
                                 "INTERNAL_LAYOUT(ts, dur) OVER (ORDER BY ts ROWS BETWEEN "
                                 "UNBOUNDED PRECEDING AND CURRENT ROW) AS d FROM s)"),
                      "0,1,1,1");
}

static void text_functions(void **state) {
  trak_processor *p = *state;
  assert_string_equal(sc_rows(p, "SELECT REGEXP_EXTRACT('abcde', 'b(c)d'), "
                                 "REGEXP_EXTRACT('abcde', 'fgh'), REGEXP_EXTRACT('abc', 'a(b)?c'), "
                                 "REGEXP_EXTRACT('ac', 'a(b)?c'), REGEXP_EXTRACT('abc', 'b.')"),
                      "c|NULL|b|ac|bc");
  assert_string_equal(sc_rows(p, "SELECT unhex('0xF'), unhex('F'), unhex(' 0Xf \n'), unhex('0'), "
                                 "unhex(NULL), unhex('0x58646cfa')"),
                      "15|15|15|0|NULL|1482976506");
  assert_non_null(strstr(sc_error(p, "SELECT unhex('0xZZ')"), "not a hexadecimal number"));
  assert_string_equal(sc_rows(p, "SELECT REGEXP_REPLACE_SIMPLE('abcde', 'c', 'C'), "
                                 "REGEXP_REPLACE_SIMPLE('abcde', 'i', 'I'), "
                                 "REGEXP_REPLACE_SIMPLE('abcde', '', '|')"),
                      "abCde|abcde||a|b|c|d|e|");
}

static void metadata_and_pointers(void **state) {
  trak_processor *p = *state;
  assert_string_equal(sc_rows(p, "SELECT extract_metadata('trace_type'), "
                                 "extract_metadata('nope'), extract_metadata(NULL), "
                                 "extract_metadata_for_trace(0, 'trace_type'), "
                                 "extract_metadata_for_trace(1, 'trace_type')"),
                      "json|NULL|NULL|json|NULL");
  /* A pointer argument is a hexadecimal string in JSON, as Perfetto writes it. */
  trak_processor *q = sc_open(
      "packet { trusted_packet_sequence_id: 1 timestamp: 10 track_event { type: TYPE_INSTANT "
      "track_uuid: 0 name: \"e\" debug_annotations { name: \"ptr\" pointer_value: 100 } "
      "debug_annotations { name: \"n\" int_value: -5 } } }\n");
  assert_string_equal(sc_rows(q, "SELECT __intrinsic_arg_set_to_json(arg_set_id) FROM slice"),
                      "{\"debug\":{\"ptr\":\"0x64\",\"n\":-5}}");
  trak_processor_free(q);
}

static void table_info(void **state) {
  trak_processor *p = *state;
  sc_rows(p, "CREATE PERFETTO TABLE ti_ids AS SELECT 0 AS c UNION SELECT 1 UNION SELECT 2");
  assert_string_equal(sc_rows(p, "SELECT id, name, col_type, nullable, sorted "
                                 "FROM perfetto_table_info('ti_ids')"),
                      "0|c|id|0|0\n1|_auto_id|id|0|0");
  sc_rows(p,
          "CREATE PERFETTO TABLE ti_mixed AS SELECT 2 AS a, 'x' AS s, 1.5 AS d, NULL AS n, "
          "-1 AS neg, 5000000000 AS big, 0 AS setid UNION ALL SELECT 1, NULL, 2.5, NULL, 3, 1, 0 "
          "UNION ALL SELECT 1, 'y', NULL, NULL, 3, 2, 2");
  assert_string_equal(sc_rows(p, "SELECT name, col_type, nullable, sorted "
                                 "FROM perfetto_table_info('ti_mixed')"),
                      "a|uint32|0|3\ns|string|1|3\nd|double|1|3\nn|uint32|1|3\n"
                      "neg|int32|0|2\nbig|int64|0|3\nsetid|uint32|0|1\n_auto_id|id|0|0");
  /* Only tables made by CREATE PERFETTO TABLE. */
  assert_non_null(strstr(sc_error(p, "SELECT * FROM perfetto_table_info('slice')"),
                         "Perfetto table 'slice' not found."));
}

static void zstd_frame(void **state) {
  trak_processor *p = *state;
  /* Magic, header (8-byte size 19), one last raw block of 19 bytes, the bytes. */
  assert_string_equal(sc_rows(p, "SELECT hex(__intrinsic_zstd_compress('hello, hello, hello')), "
                                 "__intrinsic_zstd_compress(NULL) IS NULL"),
                      "28B52FFDE0130000000000000099000068656C6C6F2C2068656C6C6F2C2068656C6C6F|1");
  /* An empty input is one empty last block; 300000 bytes take three blocks. */
  assert_string_equal(sc_rows(p, "SELECT hex(__intrinsic_zstd_compress('')), "
                                 "length(__intrinsic_zstd_compress(zeroblob(300000)))"),
                      "28B52FFDE00000000000000000010000|300022");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(legacy_create_function),
      cmocka_unit_test(memoize),
      cmocka_unit_test(delegates_to),
      cmocka_unit_test(include_and_stringify),
      cmocka_unit_test(window_functions),
      cmocka_unit_test(text_functions),
      cmocka_unit_test(metadata_and_pointers),
      cmocka_unit_test(table_info),
      cmocka_unit_test(zstd_frame),
  };
  return cmocka_run_group_tests(tests, sc_setup_empty, sc_teardown);
}
