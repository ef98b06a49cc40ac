/*
** Tests of the sched applier's memos (import/ftrace/: sched_tracker.c, thread_state.c,
** ftrace_events.c, sched_sets.c) where what they remember stops being right: a tid reused while
** its thread runs, a running thread renamed (a compact switch takes prev_comm from the thread's
** name), a switch whose prev is not the thread the CPU ran, a CPU seen first mid-trace,
** switches queued out of order, prev_state bits that share a slot of the end-state memo, and more
** distinct priorities and CPUs than a one-byte column has codes. Each answer was written down
** from the applier before the memos (main at c042b96), which had none to go stale.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "processor/import/ftrace/ftrace.h"
#include "processor/processor_internal.h"
#include "processor/util/task_state.h"
#include "sqlcheck.h"

static uint32_t str(trak_processor *p, const char *s) {
  return trak__strpool_intern(&p->tables.strings, s, strlen(s));
}

/* A processor whose sink the test drives: trak_processor_finish applies what was queued. */
static trak_processor *sink_open(void) {
  trak_processor *p;
  trak_error err = {0};
  assert_int_equal(trak_processor_new(NULL, &p, &err), 0);
  const char *text = "packet { timestamp: 1 trusted_packet_sequence_id: 1 }";
  assert_int_equal(trak_processor_feed(p, text, strlen(text), &err), 0);
  return p;
}

static void sink_finish(trak_processor *p) {
  trak_error err = {0};
  assert_int_equal(trak_processor_finish(p, &err), 0);
}

/* A typed switch on `cpu` at ts: prev (S) -> next, both of priority 120. */
static void sw(trak_processor *p, uint32_t cpu, int64_t ts, uint32_t prev, const char *prev_comm,
               uint32_t next, const char *next_comm) {
  trak__sched_switch(p->imp, cpu, ts, -1, prev, str(p, prev_comm), 120, 1, next, str(p, next_comm),
                     120);
}

/* The switch rows' args, one row per switch: prev_comm prev_pid > next_comm next_pid. */
#define RAW_SWITCHES                                                                               \
  "SELECT group_concat(v, ' ') FROM (SELECT raw.id, a.key, "                                       \
  "coalesce(a.string_value, a.int_value) v FROM raw JOIN args a USING(arg_set_id) "                \
  "WHERE raw.name = 'sched_switch' AND a.key IN ('prev_comm', 'prev_pid', 'next_comm', "           \
  "'next_pid') ORDER BY raw.id, a.id) GROUP BY id ORDER BY id"

/* Tid 10 ends and a new thread 10 starts while the old one runs on cpu 0: the switch out finds
** the new thread (Perfetto's tid lookup), and its name memo, state entry and set memo are the
** new thread's, not the old one's. */
static void test_pid_reuse(void **state) {
  (void)state;
  trak_processor *p = sink_open();
  sw(p, 0, 100, 0, "swapper/0", 10, "a");
  trak__process_free(p->imp, 150, 10);
  trak__task_newtask(p->imp, 0, 160, 0, 10, str(p, "a2"), 0);
  sw(p, 0, 200, 10, "a2", 0, "swapper/0");
  sw(p, 0, 300, 0, "swapper/0", 10, "a2");
  sw(p, 0, 400, 10, "a2", 0, "swapper/0");
  sink_finish(p);
  sc_check c[] = {
      {"SELECT s.ts, s.dur, t.utid, t.name, s.end_state FROM sched s JOIN thread t USING(utid) "
       "WHERE t.tid = 10 ORDER BY s.id",
       "100|100|1|a|S\n300|100|2|a2|S"},
      {"SELECT ts, dur, utid, state FROM thread_state WHERE utid IN (1, 2) ORDER BY id",
       "100|-1|1|Running\n160|-1|2|R\n200|100|2|S\n300|100|2|Running\n400|-1|2|S"},
      {"SELECT utid, tid, name, start_ts, end_ts FROM thread WHERE tid = 10 ORDER BY utid",
       "1|10|a|NULL|150\n2|10|a2|160|NULL"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* A compact switch's prev fields are the CPU's running thread's: renamed while it runs, its
** switch out says the new name, and the switch sets (memoised by their values) differ. */
static void test_rename_while_running(void **state) {
  (void)state;
  trak_processor *p = sink_open();
  trak_importer *imp = p->imp;
  trak__sched_switch_compact(imp, 0, 100, 0, 10, str(p, "a"), 120); /* primes cpu 0 */
  trak__sched_switch_compact(imp, 0, 200, 1, 0, str(p, "swapper/0"), 120);
  trak__sched_switch_compact(imp, 0, 300, 0, 10, str(p, "a"), 120);
  trak__task_rename(imp, 350, 10, str(p, "z"));
  trak__sched_switch_compact(imp, 0, 400, 1, 0, str(p, "swapper/0"), 120);
  trak__sched_switch_compact(imp, 0, 500, 0, 10, str(p, "a"), 120);
  trak__sched_switch_compact(imp, 0, 600, 1, 0, str(p, "swapper/0"), 120);
  sink_finish(p);
  sc_check c[] = {
      /* the swapper's prev_comm is its thread's name, "swapper" */
      {RAW_SWITCHES, "a 10 swapper/0 0\nswapper 0 a 10\nz 10 swapper/0 0\n"
                     "swapper 0 a 10\na 10 swapper/0 0"},
      {"SELECT count(DISTINCT arg_set_id) FROM raw WHERE name = 'sched_switch'", "3"},
      {"SELECT name FROM thread WHERE tid = 10", "a"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* A typed switch whose prev is not the thread cpu 0 runs (events lost): the running slice stays
** open, counted; the CPU's memos then follow the switch's next thread. */
static void test_prev_not_running(void **state) {
  (void)state;
  trak_processor *p = sink_open();
  sw(p, 0, 100, 0, "swapper/0", 10, "a");
  sw(p, 0, 200, 20, "b", 30, "c"); /* 10 was running */
  sw(p, 0, 300, 30, "c", 10, "a");
  sw(p, 0, 400, 10, "a", 0, "swapper/0");
  sink_finish(p);
  sc_check c[] = {
      {"SELECT s.ts, s.dur, t.tid, s.end_state FROM sched s JOIN thread t USING(utid) "
       "ORDER BY s.id",
       "100|-1|10|NULL\n200|100|30|S\n300|100|10|S\n400|-1|0|NULL"},
      {"SELECT value FROM stats WHERE name = 'mismatched_sched_switch_tids'", "1"},
      {"SELECT t.tid, ts.ts, ts.dur, ts.state FROM thread_state ts JOIN thread t USING(utid) "
       "ORDER BY ts.id",
       "10|100|200|Running\n20|200|-1|S\n30|200|100|Running\n30|300|-1|S\n10|300|100|Running\n"
       "10|400|-1|S"},
      {RAW_SWITCHES, "swapper/0 0 a 10\nb 20 c 30\nc 30 a 10\na 10 swapper/0 0"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* Cpu 5 first seen mid-trace, after cpus 0 and 1: its rows get its own ucpu (the per-CPU codes
** are made then); a compact waking on a CPU with no switch yet is dropped. */
static void test_new_cpu(void **state) {
  (void)state;
  trak_processor *p = sink_open();
  trak_importer *imp = p->imp;
  sw(p, 0, 100, 0, "swapper/0", 10, "a");
  sw(p, 1, 110, 0, "swapper/1", 20, "b");
  trak__sched_waking_compact(imp, 5, 150, -1, 30, str(p, "c"), 120, 5); /* no switch on 5 yet */
  sw(p, 5, 200, 0, "swapper/5", 30, "c");
  trak__sched_waking(imp, 5, 250, -1, 30, 10, str(p, "a"), 120, 0, str(p, "sched_waking"));
  sw(p, 5, 300, 30, "c", 0, "swapper/5");
  sw(p, 0, 310, 10, "a", 0, "swapper/0");
  sink_finish(p);
  sc_check c[] = {
      {"SELECT s.ts, s.cpu, s.ucpu, t.tid FROM sched s JOIN thread t USING(utid) ORDER BY s.id",
       "100|0|0|10\n110|1|1|20\n200|5|5|30\n300|5|5|0\n310|0|0|0"},
      {"SELECT ts, cpu, name FROM raw ORDER BY id",
       "100|0|sched_switch\n110|1|sched_switch\n200|5|sched_switch\n250|5|sched_waking\n"
       "300|5|sched_switch\n310|0|sched_switch"},
      {"SELECT value FROM stats WHERE name = 'compact_sched_waking_skipped'", "1"},
      {"SELECT count(*) FROM cpu WHERE cpu IS NOT NULL", "3"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* Switches queued out of timestamp order (and one at the same time as another CPU's): applied
** in order, the CPU memos see them in order. */
static void test_out_of_order(void **state) {
  (void)state;
  trak_processor *p = sink_open();
  sw(p, 0, 300, 20, "b", 10, "a");
  sw(p, 1, 200, 0, "swapper/1", 20, "b");
  sw(p, 0, 100, 0, "swapper/0", 10, "a");
  sw(p, 0, 200, 10, "a", 20, "b"); /* 20 is running on cpu 1 (a forced migration) */
  sw(p, 0, 400, 10, "a", 0, "swapper/0");
  sink_finish(p);
  sc_check c[] = {
      {"SELECT s.ts, s.dur, s.cpu, t.tid FROM sched s JOIN thread t USING(utid) ORDER BY s.id",
       "100|100|0|10\n200|-1|1|20\n200|100|0|20\n300|100|0|10\n400|-1|0|0"},
      {"SELECT t.tid, ts.ts, ts.dur, ts.state, ts.cpu FROM thread_state ts "
       "JOIN thread t USING(utid) ORDER BY ts.id",
       "10|100|100|Running|0\n20|200|0|Running|1\n10|200|100|S|NULL\n20|200|100|Running|0\n"
       "20|300|-1|S|NULL\n10|300|100|Running|0\n10|400|-1|S|NULL"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* prev_state bits 1 and 65 share a slot of the end-state memo (64 slots), and their letters
** differ: each switch's end_state and thread state is its own bits' letters. */
static void test_end_state_slots(void **state) {
  (void)state;
  char s1[4], s65[4];
  assert_int_equal(trak__task_state_letters(1, 0, 0, s1), 0);
  assert_int_equal(trak__task_state_letters(65, 0, 0, s65), 0);
  assert_string_not_equal(s1, s65);
  trak_processor *p = sink_open();
  trak_importer *imp = p->imp;
  int64_t bits[] = {1, 65, 65, 1, 2, 65};
  int64_t ts = 100;
  for (size_t i = 0; i < sizeof bits / sizeof *bits; i++, ts += 200) {
    trak__sched_switch(imp, 0, ts, -1, 0, str(p, "swapper/0"), 120, 0, 10, str(p, "a"), 120);
    trak__sched_switch(imp, 0, ts + 100, -1, 10, str(p, "a"), 120, bits[i], 0, str(p, "swapper/0"),
                       120);
  }
  sink_finish(p);
  char want[128];
  snprintf(want, sizeof want, "%s\n%s\n%s\n%s\nD\n%s", s1, s65, s65, s1, s65);
  sc_check c[] = {
      {"SELECT end_state FROM sched WHERE utid != 0 ORDER BY id", want},
      {"SELECT state FROM thread_state WHERE state != 'Running' ORDER BY id", want},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* 300 distinct priorities and 300 CPUs: past the 254 codes of a one-byte column, a row's value
** is kept beside it (TRAK_DICT8_WIDE), which the writers' code memos must keep doing. */
static void test_wide_columns(void **state) {
  (void)state;
  trak_processor *p = sink_open();
  trak_importer *imp = p->imp;
  uint32_t a = str(p, "a"), swapper = str(p, "swapper");
  for (uint32_t i = 0; i < 300; i++) {
    int64_t ts = 1000 + 10 * (int64_t)i;
    trak__sched_switch(imp, i, ts, -1, 0, swapper, 120, 0, 10 + i, a, (int32_t)i);
    trak__sched_switch(imp, i, ts + 5, -1, 10 + i, a, (int32_t)i, 1, 0, swapper, 120);
  }
  sink_finish(p);
  sc_check c[] = {
      {"SELECT count(*), count(DISTINCT priority), sum(priority), count(DISTINCT ucpu), "
       "sum(ucpu), sum(cpu) FROM sched WHERE utid != 0",
       "300|300|44850|300|44850|44850"},
      {"SELECT count(*), sum(cpu), sum(ucpu) FROM raw", "600|89700|89700"},
      {"SELECT count(*), count(DISTINCT cpu) FROM thread_state WHERE state = 'Running'", "300|300"},
      {"SELECT min(priority), max(priority), min(cpu), max(cpu) FROM sched WHERE utid != 0",
       "0|299|0|299"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pid_reuse),        cmocka_unit_test(test_rename_while_running),
      cmocka_unit_test(test_prev_not_running), cmocka_unit_test(test_new_cpu),
      cmocka_unit_test(test_out_of_order),     cmocka_unit_test(test_end_state_slots),
      cmocka_unit_test(test_wide_columns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
