/*
** Tests of trak_query_fetch_columns: column types and null masks per batch, integers widened
** to doubles and numbers turned to text in mixed columns, the string dictionary growing across
** batches (each string handed over once), strings holding a NUL, and SQL errors mid-query.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "trak/processor.h"

/* An empty finished processor: SQL over literal values needs no trace. */
static trak_processor *empty_processor(void) {
  trak_processor *p;
  trak_error err = {0};
  assert_int_equal(trak_processor_new(NULL, &p, &err), 0);
  assert_int_equal(trak_processor_finish(p, &err), 0);
  return p;
}

static trak_query *open_query(trak_processor *p, const char *sql) {
  trak_query *q;
  trak_error err = {0};
  assert_int_equal(trak_query_open(p, sql, &q, NULL, &err), 0);
  assert_non_null(q);
  return q;
}

static void test_types_and_nulls(void **state) {
  trak_processor *p = empty_processor();
  trak_query *q = open_query(p, "select * from (values (1, 1.5, 'a', null, 2),"
                                " (null, null, null, null, 2.5), (3, 2.5, 'a', null, 'x'))");
  trak_column_batch c[5];
  trak_error err = {0};
  assert_int_equal(trak_query_fetch_columns(q, 0, c, &err), 3);
  assert_int_equal(c[0].type, TRAK_VALUE_INT);
  assert_int_equal(c[0].ints[0], 1);
  assert_int_equal(c[0].ints[1], 0);
  assert_int_equal(c[0].ints[2], 3);
  assert_memory_equal(c[0].nulls, "\0\1\0", 3);
  assert_int_equal(c[1].type, TRAK_VALUE_DOUBLE);
  assert_true(c[1].doubles[0] == 1.5 && isnan(c[1].doubles[1]) && c[1].doubles[2] == 2.5);
  assert_int_equal(c[2].type, TRAK_VALUE_STRING);
  assert_int_equal(c[2].n_new_strings, 1); /* 'a' twice: one dictionary entry */
  assert_string_equal(c[2].new_strings, "a");
  assert_true(c[2].codes[0] == 0 && c[2].codes[1] == -1 && c[2].codes[2] == 0);
  assert_int_equal(c[3].type, TRAK_VALUE_NULL);
  assert_memory_equal(c[3].nulls, "\1\1\1", 3);
  /* 2, 2.5, 'x': numbers become text as SQLite prints them */
  assert_int_equal(c[4].type, TRAK_VALUE_STRING);
  assert_int_equal(c[4].n_new_strings, 3);
  assert_memory_equal(c[4].new_strings, "x\0002\0002.5", 8); /* with the NULs */
  assert_true(c[4].codes[0] == 1 && c[4].codes[1] == 2 && c[4].codes[2] == 0);
  assert_int_equal(trak_query_fetch_columns(q, 0, c, &err), 0);
  assert_int_equal(trak_query_fetch_columns(q, 0, c, &err), 0); /* done stays done */
  trak_query_free(q);
  trak_processor_free(p);
}

static void test_ints_widen_to_doubles(void **state) {
  trak_processor *p = empty_processor();
  trak_query *q = open_query(p, "select * from (values (1), (2.5))");
  trak_column_batch c[1];
  assert_int_equal(trak_query_fetch_columns(q, 0, c, NULL), 2);
  assert_int_equal(c[0].type, TRAK_VALUE_DOUBLE);
  assert_true(c[0].doubles[0] == 1.0 && c[0].doubles[1] == 2.5);
  trak_query_free(q);
  trak_processor_free(p);
}

static void test_dictionary_grows_across_batches(void **state) {
  trak_processor *p = empty_processor();
  trak_query *q = open_query(p, "with recursive c(i) as (select 0 union all select i + 1 from c "
                                "where i < 9999) select 's' || (i % 7), i from c");
  trak_column_batch c[2];
  trak_error err = {0};
  int64_t n, total = 0;
  uint32_t strings = 0;
  while ((n = trak_query_fetch_columns(q, 1000, c, &err)) > 0) {
    assert_true(n <= 1000);
    assert_int_equal(c[0].type, TRAK_VALUE_STRING);
    assert_int_equal(c[0].new_offsets[c[0].n_new_strings] - c[0].new_offsets[0],
                     c[0].n_new_strings * 3); /* "sK" plus NUL each */
    strings += c[0].n_new_strings;
    for (int64_t r = 0; r < n; r++) {
      assert_int_equal(c[1].ints[r], total + r);
      assert_int_equal(c[0].codes[r], (total + r) % 7); /* first seen in this order */
    }
    total += n;
  }
  assert_int_equal(n, 0);
  assert_int_equal(total, 10000);
  assert_int_equal(strings, 7);
  trak_query_free(q);
  trak_processor_free(p);
}

static void test_strings_holding_nul(void **state) {
  trak_processor *p = empty_processor();
  trak_query *q = open_query(p, "select cast(x'610062' as text), x'00ff'");
  trak_column_batch c[2];
  assert_int_equal(trak_query_fetch_columns(q, 0, c, NULL), 1);
  assert_int_equal(c[0].type, TRAK_VALUE_STRING);
  assert_int_equal(c[0].new_strings_have_nul, 1);
  assert_int_equal(c[0].new_offsets[1], 4);
  assert_memory_equal(c[0].new_strings, "a\0b\0", 4);
  assert_int_equal(c[1].type, TRAK_VALUE_STRING); /* a blob, as its bytes */
  assert_memory_equal(c[1].new_strings, "\0\xff\0", 3);
  trak_query_free(q);
  trak_processor_free(p);
}

static void test_sql_error_mid_query(void **state) {
  trak_processor *p = empty_processor();
  /* abs() of the smallest integer overflows when the row is computed */
  trak_query *q =
      open_query(p, "select abs(column1) from (values (1), (-9223372036854775807 - 1))");
  trak_column_batch c[1];
  trak_error err = {0};
  assert_int_equal(trak_query_fetch_columns(q, 0, c, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "integer overflow"));
  assert_int_equal(trak_query_fetch_columns(q, 0, c, &err), 0); /* not re-run */
  trak_query_free(q);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_types_and_nulls),
      cmocka_unit_test(test_ints_widen_to_doubles),
      cmocka_unit_test(test_dictionary_grows_across_batches),
      cmocka_unit_test(test_strings_holding_nul),
      cmocka_unit_test(test_sql_error_mid_query),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
