/*
** Tests of the /proc/PID/stat parser (src/util/proc_stat.c) on this process: its pid, its start
** time and CPU ticks read back, and unreadable or short input refused.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <unistd.h>

#include "util/proc_stat.h"

static void reads_own_fields(void **state) {
  unsigned long long v[3];
  /* Fields 4-6 are ppid, pgrp, session: the parent's pid comes first. */
  assert_int_equal(trak__proc_stat(getpid(), 4, 3, v), 0);
  assert_int_equal(v[0], (unsigned long long)getppid());
  unsigned long long start;
  assert_int_equal(trak__proc_stat(getpid(), 22, 1, &start), 0);
  assert_true(start > 0);
  unsigned long long t[2];
  assert_int_equal(trak__proc_stat(getpid(), 14, 2, t), 0);
}

static void refuses_what_it_cannot_read(void **state) {
  unsigned long long v;
  assert_int_equal(trak__proc_stat(-1, 22, 1, &v), -1);        /* no such process */
  assert_int_equal(trak__proc_stat(getpid(), 2, 1, &v), -1);   /* the name is no number */
  assert_int_equal(trak__proc_stat(getpid(), 400, 1, &v), -1); /* past the last field */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reads_own_fields),
      cmocka_unit_test(refuses_what_it_cannot_read),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
