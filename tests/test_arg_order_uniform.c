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

/* A trace of write_trace and the args rows it imports to. */
typedef struct args_case {
  const char *a, *b, *c, *want;
} args_case;

static const args_case CASES[] = {
    /* real_value NULL in every row (kept) */
    {"\"a\":1,\"s\":\"x\"", "2", "\"c\":3,\"t\":\"y\"",
     "0,utid,1,N,N,int;1,args.b,2,N,N,int;2,utid,2,N,N,int;3,args.a,1,N,N,int;"
     "3,args.s,N,N,x,string;5,args.c,3,N,N,int;5,args.t,N,N,y,string"},
    /* one real value: every column gathered */
    {"\"a\":1,\"s\":\"x\"", "2.5", "\"c\":3,\"t\":\"y\"",
     "0,utid,1,N,N,int;1,args.b,N,2.5,N,real;2,utid,2,N,N,int;3,args.a,1,N,N,int;"
     "3,args.s,N,N,x,string;5,args.c,3,N,N,int;5,args.t,N,N,y,string"},
    /* strings only */
    {"\"s\":\"x\"", "\"z\"", "\"t\":\"y\"",
     "0,utid,1,N,N,int;1,args.b,N,N,z,string;2,utid,2,N,N,int;3,args.s,N,N,x,string;"
     "4,args.t,N,N,y,string"},
    /* ints only: value_type (all int, read), string_value and real_value kept */
    {"\"a\":1", "2", "\"c\":3",
     "0,utid,1,N,N,int;1,args.b,2,N,N,int;2,utid,2,N,N,int;3,args.a,1,N,N,int;"
     "4,args.c,3,N,N,int"},
};

/* Every case imports to its rows on one thread and split between two. */
static void test_args_rows(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
    const args_case *k = &CASES[i];
    char path[] = "/tmp/trak_arg_uniform_XXXXXX";
    write_trace(path, k->a, k->b, k->c);
    for (int split = 0; split < 2; split++) {
      setenv("TRAK_IMPORT_THREADS", split ? "2" : "1", 1);
      if (split) setenv("TRAK_SPLIT_ALWAYS", "1", 1);
      char *got = tu_query_text(path, ARGS_SQL);
      if (!got || strcmp(got, k->want))
        fail_msg("case %zu, split %d: args\n  %s\nexpected\n  %s", i, split, got ? got : "(null)",
                 k->want);
      free(got);
      unsetenv("TRAK_SPLIT_ALWAYS");
      unsetenv("TRAK_IMPORT_THREADS");
    }
    unlink(path);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_args_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
