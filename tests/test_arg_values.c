/*
** Tests of the args table's one value word per row (tables/arg_value.h): an arg of every type
** (int, uint, bool, pointer, real including -0.0 and extreme values, string, json, null) reads
** back through SQL as the separate value columns gave it: int_value, string_value and real_value
** NULL unless value_type says the row holds that kind, display_value as Perfetto writes it,
** extract_arg's value, and filters on the value columns (string ids and integers) answering the
** right rows.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "processor/processor_internal.h"
#include "processor/tables/arg_value.h"
#include "trak/processor.h"

static const char TRACE[] = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"s\", \"ts\": 1, "
                            "\"dur\": 2, \"pid\": 1, \"tid\": 1}]}";

/* One arg row of the test set: its key, type, value (the kind its type says) and display_value
** (NULL: checked only for NULL-ness by type). */
typedef struct arg_case {
  const char *key;
  trak_arg_type type;
  int64_t i;
  double r;
  const char *s, *display;
} arg_case;

static const arg_case CASES[] = {
    {"k_int", TRAK_ARG_INT, -5, 0, NULL, "-5"},
    {"k_int_min", TRAK_ARG_INT, INT64_MIN, 0, NULL, "-9223372036854775808"},
    {"k_uint", TRAK_ARG_UINT, -1, 0, NULL, "18446744073709551615"}, /* stored as its bits */
    {"k_bool", TRAK_ARG_BOOL, 1, 0, NULL, "true"},
    {"k_false", TRAK_ARG_BOOL, 0, 0, NULL, "false"},
    {"k_ptr", TRAK_ARG_POINTER, 0xdeadbeef, 0, NULL, "0xdeadbeef"},
    {"k_real", TRAK_ARG_REAL, 0, 2.5, NULL, "2.5"},
    {"k_negzero", TRAK_ARG_REAL, 0, -0.0, NULL, NULL},
    {"k_huge", TRAK_ARG_REAL, 0, -1.7976931348623157e308, NULL, NULL},
    {"k_tiny", TRAK_ARG_REAL, 0, 4.9406564584124654e-324, NULL, NULL},
    {"k_str", TRAK_ARG_STRING, 0, 0, "hello", "hello"},
    {"k_json", TRAK_ARG_JSON, 0, 0, "{\"a\":1}", "{\"a\":1}"},
    {"k_null", TRAK_ARG_NULL, 0, 0, NULL, NULL},
};
#define NCASES (sizeof CASES / sizeof *CASES)

/* A processor over TRACE whose slice has an arg set of every CASES row, added after the import
** as annotations add rows. */
static trak_processor *with_args(uint32_t *set) {
  trak_processor *p;
  assert_int_equal(trak_processor_new(NULL, &p, NULL), 0);
  assert_int_equal(trak_processor_feed(p, TRACE, sizeof TRACE - 1, NULL), 0);
  assert_int_equal(trak_processor_finish(p, NULL), 0);
  trak_tables *t = &p->tables;
  t->generation++;
  *set = (uint32_t)t->args.n;
  for (size_t c = 0; c < NCASES; c++) {
    const arg_case *a = &CASES[c];
    uint32_t key = trak__strpool_intern(&t->strings, a->key, strlen(a->key));
    uint32_t s = a->s ? trak__strpool_intern(&t->strings, a->s, strlen(a->s)) : 0;
    uint32_t row = trak__arg_add(t, *set, key, key, a->type);
    t->args.value[row] = trak__arg_word(a->type, a->i, a->r, s);
  }
  assert_true(t->slice.n >= 1);
  t->slice.arg_set_id[0] = *set;
  return p;
}

/* The one row `sql` gives, its columns checked by the caller; fails on no row. */
static trak_query *one_row(trak_processor *p, const char *sql) {
  trak_query *q;
  assert_int_equal(trak_query_open(p, sql, &q, NULL, NULL), 0);
  assert_int_equal(trak_query_next(q, NULL), 1);
  return q;
}

/* The value columns of each row read as the separate columns gave them. */
static void test_value_columns(void **state) {
  (void)state;
  uint32_t set;
  trak_processor *p = with_args(&set);
  char sql[512];
  for (size_t c = 0; c < NCASES; c++) {
    const arg_case *a = &CASES[c];
    snprintf(sql, sizeof sql,
             "SELECT int_value, string_value, real_value, display_value, value_type FROM args "
             "WHERE arg_set_id = %u AND key = '%s'",
             set, a->key);
    trak_query *q = one_row(p, sql);
    int is_int = trak__arg_type_int(a->type), is_str = trak__arg_type_str(a->type),
        is_real = a->type == TRAK_ARG_REAL;
    assert_int_equal(trak_query_type(q, 0), is_int ? TRAK_VALUE_INT : TRAK_VALUE_NULL);
    assert_int_equal(trak_query_type(q, 1), is_str ? TRAK_VALUE_STRING : TRAK_VALUE_NULL);
    assert_int_equal(trak_query_type(q, 2), is_real ? TRAK_VALUE_DOUBLE : TRAK_VALUE_NULL);
    if (is_int) assert_true(trak_query_int(q, 0) == a->i);
    if (is_str) assert_string_equal(trak_query_string(q, 1), a->s);
    if (is_real) {
      double r = trak_query_double(q, 2);
      assert_memory_equal(&r, &a->r, sizeof r); /* -0.0 keeps its sign */
    }
    assert_string_equal(trak_query_string(q, 4), trak__arg_type_names[a->type]);
    assert_int_equal(trak_query_type(q, 3),
                     a->type == TRAK_ARG_NULL ? TRAK_VALUE_NULL : TRAK_VALUE_STRING);
    if (a->display) assert_string_equal(trak_query_string(q, 3), a->display);
    trak_query_free(q);
  }
  trak_processor_free(p);
}

/* extract_arg gives each key's value in its SQLite type; filters on the value columns answer the
** rows of that kind only. */
static void test_extract_and_filters(void **state) {
  (void)state;
  uint32_t set;
  trak_processor *p = with_args(&set);
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT extract_arg(arg_set_id, 'k_int'), extract_arg(arg_set_id, 'k_uint'), "
           "extract_arg(arg_set_id, 'k_ptr'), extract_arg(arg_set_id, 'k_real'), "
           "extract_arg(arg_set_id, 'k_str'), extract_arg(arg_set_id, 'k_json'), "
           "extract_arg(arg_set_id, 'k_null'), extract_arg(arg_set_id, 'k_bool'), "
           "extract_arg(arg_set_id, 'k_negzero') FROM slice WHERE arg_set_id = %u",
           set);
  trak_query *q = one_row(p, sql);
  assert_true(trak_query_int(q, 0) == -5);
  assert_true(trak_query_int(q, 1) == -1);
  assert_true(trak_query_int(q, 2) == 0xdeadbeef);
  assert_int_equal(trak_query_type(q, 3), TRAK_VALUE_DOUBLE);
  assert_true(trak_query_double(q, 3) == 2.5);
  assert_string_equal(trak_query_string(q, 4), "hello");
  assert_string_equal(trak_query_string(q, 5), "{\"a\":1}");
  assert_int_equal(trak_query_type(q, 6), TRAK_VALUE_NULL);
  assert_int_equal(trak_query_type(q, 7), TRAK_VALUE_INT);
  assert_true(trak_query_int(q, 7) == 1);
  assert_true(trak_query_double(q, 8) == 0 && signbit(trak_query_double(q, 8)));
  trak_query_free(q);

  /* each filter (a WHERE term on the set's rows), then the keys of the rows it keeps */
  static const char *const filters[] = {
      "string_value = 'hello'",
      "k_str",
      "string_value = '{\"a\":1}'",
      "k_json",
      "string_value IS NOT NULL",
      "k_str,k_json",
      "int_value > 0",
      "k_bool,k_ptr",
      "int_value < 0",
      "k_int,k_int_min,k_uint",
      "int_value = 0",
      "k_false",
      "int_value IS NOT NULL",
      "k_int,k_int_min,k_uint,k_bool,k_false,k_ptr",
      "real_value > 0",
      "k_real,k_tiny",
      "real_value = 0",
      "k_negzero",
      "real_value < -1e300",
      "k_huge",
      "int_value IS NULL AND string_value IS NULL AND real_value IS NULL",
      "k_null",
      "display_value = 'true'",
      "k_bool"};
  for (size_t i = 0; i + 1 < sizeof filters / sizeof *filters; i += 2) {
    snprintf(sql, sizeof sql,
             "SELECT group_concat(key, ',') FROM (SELECT key FROM args WHERE arg_set_id = %u AND "
             "%s ORDER BY id)",
             set, filters[i]);
    q = one_row(p, sql);
    const char *got = trak_query_string(q, 0);
    if (!got || strcmp(got, filters[i + 1]))
      fail_msg("WHERE %s: %s, want %s", filters[i], got ? got : "(none)", filters[i + 1]);
    trak_query_free(q);
  }
  /* the same without the arg set (the whole table: the scan's own filters) */
  q = one_row(p, "SELECT count(*) FROM args WHERE string_value = 'hello'");
  assert_true(trak_query_int(q, 0) == 1);
  trak_query_free(q);
  q = one_row(p, "SELECT count(*), sum(extract_arg(arg_set_id, 'k_str') = 'hello') FROM slice "
                 "WHERE extract_arg(arg_set_id, 'k_int') = -5 AND "
                 "extract_arg(arg_set_id, 'k_real') > 2");
  assert_true(trak_query_int(q, 0) == 1 && trak_query_int(q, 1) == 1);
  trak_query_free(q);
  trak_processor_free(p);
}

/* The word accessors: each kind round-trips, and a row of another kind reads 0. */
static void test_accessors(void **state) {
  (void)state;
  trak_tables t;
  trak__tables_init(&t);
  uint32_t i = trak__arg_add(&t, 0, 1, 1, TRAK_ARG_UINT),
           r = trak__arg_add(&t, 0, 2, 2, TRAK_ARG_REAL),
           s = trak__arg_add(&t, 0, 3, 3, TRAK_ARG_JSON);
  trak__arg_set_int(&t, i, INT64_MIN);
  trak__arg_set_real(&t, r, -0.0);
  trak__arg_set_str(&t, s, UINT32_MAX);
  assert_true(trak__arg_int(&t, i) == INT64_MIN && trak__arg_real(&t, i) == 0 &&
              trak__arg_str(&t, i) == 0);
  assert_true(trak__arg_real(&t, r) == 0 && signbit(trak__arg_real(&t, r)) &&
              trak__arg_int(&t, r) == 0 && trak__arg_str(&t, r) == 0);
  assert_true(trak__arg_str(&t, s) == UINT32_MAX && trak__arg_int(&t, s) == 0);
  assert_true(t.args.value[s] == UINT32_MAX); /* zero-extended */
  trak__tables_free(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_value_columns),
      cmocka_unit_test(test_extract_and_filters),
      cmocka_unit_test(test_accessors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
