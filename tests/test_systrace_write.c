/*
** Tests of the systrace text writer (src/processor/util/systrace_write.c) against the line
** parser it is the inverse of: every timestamp reads back to the same nanosecond, task names
** with dashes, digits, control bytes or no name read back as the writer means them, and the
** prefix has the layout of Perfetto's to_ftrace.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "processor/util/systrace_line.h"
#include "processor/util/systrace_write.h"

/* Writes one line and parses it back; the buffer stays owned by the caller. */
static void write_parse(trak_textbuf *b, const char *task, int64_t tid, int64_t tgid, uint32_t cpu,
                        int64_t ts, trak_systrace_line *l) {
  b->len = 0;
  trak__systrace_prefix_write(b, task, tid, tgid, cpu, ts, "sched_waking");
  trak__textbuf_printf(b, " comm=x pid=1");
  assert_int_equal(trak__systrace_line_parse(b->s, b->len, l), 0);
}

static int strv_eq(trak_strv v, const char *s) {
  return v.len == strlen(s) && memcmp(v.s, s, v.len) == 0;
}

static void timestamps_exact(void **state) {
  (void)state;
  /* Nine-digit text alone misreads some of these (strtod lands below the nanosecond). */
  static const int64_t fixed[] = {0,
                                  1,
                                  999999999,
                                  1000000000,
                                  45373452062284,
                                  45373456300081,
                                  86399999999999,
                                  1234567890123456,
                                  100000000000003};
  trak_textbuf b = {0};
  trak_systrace_line l;
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
    write_parse(&b, "t", 1, -1, 0, fixed[i], &l);
    assert_int_equal(l.ts, fixed[i]);
  }
  /* A sweep over a day of boot times: every value reads back exactly. */
  int64_t ts = 1;
  int fixed_up = 0;
  for (int i = 0; i < 200000; i++) {
    ts = (int64_t)((uint64_t)ts * 6364136223846793005ULL % 86400000000000ULL);
    char text[32];
    size_t n = trak__systrace_ts_format(ts, text);
    fixed_up += text[n - 11] != '.'; /* a tenth digit was added */
    write_parse(&b, "t", 1, -1, 0, ts, &l);
    assert_int_equal(l.ts, ts);
  }
  assert_true(fixed_up > 0); /* the sweep met the values that need the tenth digit */
  trak__textbuf_free(&b);
}

static void prefix_layout(void **state) {
  (void)state;
  trak_textbuf b = {0};
  trak__systrace_prefix_write(&b, "rcu_preempt", 15, 15, 1, 45373452062284, "sched_switch");
  assert_string_equal(b.s,
                      "     rcu_preempt-15    (   15) [001] .... 45373.452062284: sched_switch:");
  b.len = 0;
  trak__systrace_prefix_write(&b, NULL, 7, -1, 12, 1000, "print");
  assert_string_equal(b.s, "           <...>-7     (-----) [012] .... 0.000001000: print:");
  trak__textbuf_free(&b);
}

static void task_names(void **state) {
  (void)state;
  trak_textbuf b = {0};
  trak_systrace_line l;
  /* Dashes that do not look like "-PID [CPU]" stay. */
  write_parse(&b, "kworker/0:1-events", 42, 42, 3, 5, &l);
  assert_true(strv_eq(l.task, "kworker/0:1-events"));
  assert_int_equal(l.pid, 42);
  assert_int_equal(l.cpu, 3);
  assert_true(strv_eq(l.tgid, "42"));
  write_parse(&b, "memfd:sealed-91", 31254, -1, 0, 5, &l);
  assert_true(strv_eq(l.task, "memfd:sealed-91"));
  assert_int_equal(l.pid, 31254);
  assert_true(strv_eq(l.tgid, "-----"));
  /* A name that would read as another pid and CPU: its dashes are written as '_'. */
  write_parse(&b, "a-1 [2] 3.4: e:", 9, -1, 0, 5, &l);
  assert_true(strv_eq(l.task, "a_1 [2] 3.4: e:"));
  assert_int_equal(l.pid, 9);
  assert_int_equal(l.cpu, 0);
  /* Control bytes (a newline would end the line) are spaces; an empty name is "<...>". */
  write_parse(&b, "x\ny", 9, -1, 0, 5, &l);
  assert_true(strv_eq(l.task, "x y"));
  write_parse(&b, "", 9, -1, 0, 5, &l);
  assert_true(strv_eq(l.task, "<...>"));
  trak__textbuf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(timestamps_exact),
      cmocka_unit_test(prefix_layout),
      cmocka_unit_test(task_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
