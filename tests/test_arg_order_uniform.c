/*
** The args relayout at the end of an import (import/arg_order.c) keeps a value column whose rows
** all hold one value instead of gathering it: JSON traces whose args leave real_value NULL in
** every row (ints and strings), one with a real value (no column kept but those all one value),
** one of strings only, and one of ints only (value_type kept, and read), import to the args rows they imported to before (Perfetto's order: an
** inner slice's set before its parent's), on one thread and split between two at any size
** (TRAK_SPLIT_ALWAYS=1).
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
#include "trak/processor.h"

/* Every args row, in id order, as one text: set, key, int, real, string (N: NULL), type. */
static const char *const ARGS_SQL =
    "select group_concat(r, ';') from (select arg_set_id||','||key||','||ifnull(int_value,'N')||"
    "','||ifnull(real_value,'N')||','||ifnull(string_value,'N')||','||value_type as r from args "
    "order by id)";

/* Nested slices (the inner's set placed first) and a complete slice on another thread; `a` and
** `c` are the outer's and the complete slice's args members, `b` the inner's value (JSON text). */
static void write_trace(char *path, const char *a, const char *b, const char *c) {
  char text[1024];
  int n = snprintf(
      text, sizeof text,
      "[{\"name\":\"outer\",\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{%s}},\n"
      "{\"name\":\"inner\",\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":1,\"args\":{\"b\":%s}},\n"
      "{\"name\":\"inner\",\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":2},\n"
      "{\"name\":\"x\",\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":1,\"args\":{%s}},\n"
      "{\"name\":\"outer\",\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":5}]\n",
      a, b, c);
  assert_true(n > 0 && (size_t)n < sizeof text);
  tu_write_temp(path, text, (size_t)n);
}

/* Asserts the args rows of the trace write_trace makes of a, b, c are `want`, on one thread and two. */
static void check(const char *a, const char *b, const char *c, const char *want) {
  char path[] = "/tmp/trak_arg_uniform_XXXXXX";
  write_trace(path, a, b, c);
  for (int split = 0; split < 2; split++) {
    setenv("TRAK_IMPORT_THREADS", split ? "2" : "1", 1);
    if (split) setenv("TRAK_SPLIT_ALWAYS", "1", 1);
    trak_processor *p;
    trak_error err = {0};
    assert_int_equal(trak_processor_open_file(path, NULL, &p, &err), 0);
    trak_query *q;
    assert_int_equal(trak_query_open(p, ARGS_SQL, &q, NULL, &err), 0);
    assert_int_equal(trak_query_next(q, &err), 1);
    const char *got = trak_query_string(q, 0);
    if (!got || strcmp(got, want))
      fail_msg("split %d: args\n  %s\nexpected\n  %s", split, got ? got : "(null)", want);
    trak_query_free(q);
    trak_processor_free(p);
    unsetenv("TRAK_SPLIT_ALWAYS");
    unsetenv("TRAK_IMPORT_THREADS");
  }
  unlink(path);
}

static void test_real_value_all_null(void **state) {
  (void)state;
  check("\"a\":1,\"s\":\"x\"", "2", "\"c\":3,\"t\":\"y\"",
        "0,utid,1,N,N,int;1,args.b,2,N,N,int;2,utid,2,N,N,int;3,args.a,1,N,N,int;"
        "3,args.s,N,N,x,string;5,args.c,3,N,N,int;5,args.t,N,N,y,string");
}

static void test_one_real_value(void **state) {
  (void)state;
  check("\"a\":1,\"s\":\"x\"", "2.5", "\"c\":3,\"t\":\"y\"",
        "0,utid,1,N,N,int;1,args.b,N,2.5,N,real;2,utid,2,N,N,int;3,args.a,1,N,N,int;"
        "3,args.s,N,N,x,string;5,args.c,3,N,N,int;5,args.t,N,N,y,string");
}

static void test_strings_only(void **state) {
  (void)state;
  check("\"s\":\"x\"", "\"z\"", "\"t\":\"y\"",
        "0,utid,1,N,N,int;1,args.b,N,N,z,string;2,utid,2,N,N,int;3,args.s,N,N,x,string;"
        "4,args.t,N,N,y,string");
}

/* value_type (all int), string_value and real_value kept: the first is read */
static void test_ints_only(void **state) {
  (void)state;
  check(
      "\"a\":1", "2", "\"c\":3",
      "0,utid,1,N,N,int;1,args.b,2,N,N,int;2,utid,2,N,N,int;3,args.a,1,N,N,int;4,args.c,3,N,N,int");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_real_value_all_null),
      cmocka_unit_test(test_one_real_value),
      cmocka_unit_test(test_strings_only),
      cmocka_unit_test(test_ints_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
