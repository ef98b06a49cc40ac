/*
** The end of an import split between two threads (import/arg_order.c, tracks.c) makes the tables
** one thread makes: a generated JSON trace of nested and complete slices and counters on several
** threads, with args (tens of thousands of rows: the gather behind the placing copies them in
** several runs while the sets are still being placed), imported on one thread and on two with
** every split taken at any size (TRAK_SPLIT_ALWAYS=1): the args rows, and the slices' and
** counters' tracks and arg sets (the track_id columns renumbered on the other core, the slices'
** set ids renumbered in two halves). Variants: every value column gathered, and one whose value
** column holds one value (kept; the gather behind the placing takes the next column).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "testutil.h"

/* What the import makes of the trace, as texts compared between the imports. */
static const char *const QUERIES[] = {
    "select group_concat(r, ';') from (select arg_set_id||','||key||','||ifnull(int_value,'N')||"
    "','||ifnull(real_value,'N')||','||ifnull(string_value,'N')||','||value_type as r from args "
    "order by id)",
    "select group_concat(r, ';') from (select id||','||track_id||','||ifnull(arg_set_id,'N')||','||"
    "name as r from slice order by id)",
    "select group_concat(r, ';') from (select id||','||track_id||','||ifnull(arg_set_id,'N')||','||"
    "value as r from counter order by id)",
};

/* Writes a trace of `n` rounds to `path`: on each of 4 threads an outer slice holding an inner
** one and a complete slice, and a counter; with `same_value`, every arg is the int 7 (its key
** varies), else the values vary (ints, reals, strings). */
static void write_trace(char *path, int n, int same_value) {
  size_t cap = (size_t)n * 4 * 700 + 64, len = 0;
  char *text = malloc(cap);
  assert_non_null(text);
  len += (size_t)snprintf(text + len, cap - len, "[");
  for (int i = 0; i < n; i++) {
    for (int tid = 1; tid <= 4; tid++) {
      long ts = (long)i * 100 + tid;
      char v1[32], v2[32], v3[32];
      if (same_value) {
        strcpy(v1, "7"), strcpy(v2, "7"), strcpy(v3, "7");
      } else {
        snprintf(v1, sizeof v1, "%d", i * tid);
        snprintf(v2, sizeof v2, "%d.5", i);
        snprintf(v3, sizeof v3, "\"s%d\"", i % 97);
      }
      len += (size_t)snprintf(
          text + len, cap - len,
          "%s{\"name\":\"outer\",\"ph\":\"B\",\"pid\":1,\"tid\":%d,\"ts\":%ld,\"args\":{\"a%d\":%s,"
          "\"b\":%s}},\n"
          "{\"name\":\"inner\",\"ph\":\"B\",\"pid\":1,\"tid\":%d,\"ts\":%ld,\"args\":{\"c\":%s}},\n"
          "{\"name\":\"inner\",\"ph\":\"E\",\"pid\":1,\"tid\":%d,\"ts\":%ld},\n"
          "{\"name\":\"outer\",\"ph\":\"E\",\"pid\":1,\"tid\":%d,\"ts\":%ld},\n"
          "{\"name\":\"x\",\"ph\":\"X\",\"pid\":2,\"tid\":%d,\"ts\":%ld,\"dur\":5,\"args\":{\"d%d\":%s,"
          "\"e\":%s}},\n"
          "{\"name\":\"ctr\",\"ph\":\"C\",\"pid\":2,\"ts\":%ld,\"args\":{\"k%d\":%d}}",
          i || tid > 1 ? ",\n" : "", tid, ts, i % 5, v1, v2, tid, ts + 10, v3, tid, ts + 20, tid,
          ts + 30, tid + 10, ts, i % 3, v2, v3, ts, tid, same_value ? 7 : i);
    }
  }
  len += (size_t)snprintf(text + len, cap - len, "]\n");
  assert_true(len < cap);
  tu_write_temp(path, text, len);
  free(text);
}

/* The trace of write_trace(n, same_value) makes the same tables on one thread and split
** between two. */
static void check_split(int n, int same_value) {
  char path[] = "/tmp/trak_mt_arg_split_XXXXXX";
  write_trace(path, n, same_value);
  for (size_t q = 0; q < sizeof QUERIES / sizeof *QUERIES; q++) {
    setenv("TRAK_IMPORT_THREADS", "1", 1);
    char *one = tu_query_text(path, QUERIES[q]);
    setenv("TRAK_IMPORT_THREADS", "2", 1);
    setenv("TRAK_SPLIT_ALWAYS", "1", 1);
    char *two = tu_query_text(path, QUERIES[q]);
    unsetenv("TRAK_SPLIT_ALWAYS");
    unsetenv("TRAK_IMPORT_THREADS");
    assert_non_null(one);
    assert_non_null(two);
    assert_true(strlen(one) > 100);
    if (strcmp(one, two)) fail_msg("query %zu differs between one thread and two", q);
    free(one);
    free(two);
  }
  unlink(path);
}

static void test_values_vary(void **state) {
  (void)state;
  check_split(6000, 0);
}

static void test_value_column_one_value(void **state) {
  (void)state;
  check_split(3000, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values_vary),
      cmocka_unit_test(test_value_column_one_value),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
