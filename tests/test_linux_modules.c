/*
** Tests of the Linux standard modules (sched.*, linux.cpu.*, linux.threads, slices.cpu_time,
** slices.time_in_state) on a small fixed scheduling story. Each test replaces the prelude's
** views sched, thread_state, cpu and cpu_counter_track by plain tables (FIXTURE below) next to
** tests/data/linux/modules_fixture.pbtxt, which holds the thread slices and the counters the
** fixture's tracks point at, and a clock snapshot (monotonic = boot time). The expected rows
** were worked out by hand from the story (docs/design/linux-import.md gives each module's
** rule); the comments give the sums. slices_thread_time runs on an imported systrace story
** instead: the modules it tests read the importer's tables, not the views.
**
** The story, trace bounds 0 to 1,000,000 ns, two CPUs (cpufreq: CPU 0 1 GHz then 2 GHz from
** 150,000; CPU 1 500 MHz), utid 0 swapper, utid 2 "main" and utid 3 "worker" of process
** "app" (upid 1):
**   main:   S [0,90k) R [90k,100k) Running cpu0 [100k,130k) D io [130k,160k) R [160k,170k)
**           Running cpu1 [170k,250k) S from 250k (unfinished)
**   worker: S [0,120k) R [120k,130k) Running cpu0 [130k,400k) R+ [400k,450k)
**           Running cpu0 [450k,500k) S [500k,1000k)
**   slices: job (worker) [50k,350k), work (main) [100k,200k), inner (main) [120k,140k),
**           tight (worker) [160k,200k)
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"

#define TRACE "tests/data/linux/modules_fixture.pbtxt"

static const char FIXTURE[] =
    "DROP VIEW cpu; DROP VIEW cpu_counter_track; DROP VIEW sched_slice; DROP VIEW sched;"
    "DROP VIEW thread_state;"
    "CREATE TABLE cpu(id INT, ucpu INT, cpu INT, machine_id INT);"
    "INSERT INTO cpu VALUES (0, 0, 0, NULL), (1, 1, 1, NULL);"
    /* The trace's counter tracks "cpu0", "cpu1" and "idle0" stand for the CPUs' tracks. */
    "CREATE TABLE cpu_counter_track(id INT, name TEXT, cpu INT, machine_id INT);"
    "INSERT INTO cpu_counter_track SELECT id, iif(name = 'idle0', 'cpuidle', 'cpufreq'),"
    "  iif(name = 'cpu1', 1, 0), NULL FROM counter_track;"
    "CREATE TABLE sched(id INT, ts INT, dur INT, cpu INT, utid INT, end_state TEXT,"
    "  priority INT, ucpu INT, ts_end INT);"
    "INSERT INTO sched(id, ts, dur, cpu, utid, end_state, priority) VALUES"
    "  (0, 0, 100000, 0, 0, 'R', 120), (1, 0, 170000, 1, 0, 'R', 120),"
    "  (2, 100000, 30000, 0, 2, 'D', 120), (3, 130000, 270000, 0, 3, 'R+', 120),"
    "  (4, 170000, 80000, 1, 2, 'S', 110), (5, 250000, 750000, 1, 0, 'R', 120),"
    "  (6, 400000, 50000, 0, 0, 'R', 120), (7, 450000, 50000, 0, 3, 'S', 120),"
    "  (8, 500000, -1, 0, 0, NULL, 120);"
    "UPDATE sched SET ucpu = cpu, ts_end = ts + dur;"
    "CREATE TABLE thread_state(id INT, ts INT, dur INT, cpu INT, utid INT, state TEXT,"
    "  io_wait INT, blocked_function TEXT, waker_utid INT, waker_id INT, irq_context INT,"
    "  ucpu INT);"
    "INSERT INTO thread_state(id, ts, dur, cpu, utid, state, io_wait, blocked_function,"
    "  waker_utid, irq_context) VALUES"
    "  (0, 0, 90000, NULL, 2, 'S', NULL, NULL, NULL, NULL),"
    "  (1, 0, 120000, NULL, 3, 'S', NULL, NULL, NULL, NULL),"
    "  (2, 90000, 10000, NULL, 2, 'R', NULL, NULL, 3, 0),"
    "  (3, 100000, 30000, 0, 2, 'Running', NULL, NULL, NULL, NULL),"
    "  (4, 120000, 10000, NULL, 3, 'R', NULL, NULL, 2, NULL),"
    "  (5, 130000, 30000, NULL, 2, 'D', 1, 'f', NULL, NULL),"
    "  (6, 130000, 270000, 0, 3, 'Running', NULL, NULL, NULL, NULL),"
    "  (7, 160000, 10000, NULL, 2, 'R', NULL, NULL, 3, 1),"
    "  (8, 170000, 80000, 1, 2, 'Running', NULL, NULL, NULL, NULL),"
    "  (9, 250000, -1, NULL, 2, 'S', NULL, NULL, NULL, NULL),"
    "  (10, 400000, 50000, NULL, 3, 'R+', NULL, NULL, NULL, NULL),"
    "  (11, 450000, 50000, 0, 3, 'Running', NULL, NULL, NULL, NULL),"
    "  (12, 500000, 500000, NULL, 3, 'S', NULL, NULL, NULL, NULL);"
    "UPDATE thread_state SET ucpu = cpu;"
    "SELECT 1";

static trak_processor *open_story(void) {
  trak_processor *p = sc_open_file(TRACE);
  sc_rows(p, FIXTURE);
  return p;
}

static void sched_states(void **state) {
  (void)state;
  trak_processor *p = open_story();
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE sched.states; SELECT sched_state_to_human_readable_string(column1) "
       "FROM (VALUES ('Running'), ('R'), ('R+'), ('S'), ('D'), ('T'), ('t'), ('X'), ('Z'), "
       "('x'), ('I'), ('K'), ('W'), ('P'), ('N'), ('Q'))",
       "Running\nRunnable\nRunnable (Preempted)\nSleeping\nUninterruptible Sleep\nStopped\n"
       "Traced\nExit (Dead)\nExit (Zombie)\nTask Dead\nIdle\nWakekill\nWaking\nParked\n"
       "No Load\nQ"},
      {"INCLUDE PERFETTO MODULE sched.states; SELECT sched_state_io_to_human_readable_string("
       "'D', 1), sched_state_io_to_human_readable_string('D', 0), "
       "sched_state_io_to_human_readable_string('S', NULL)",
       "Uninterruptible Sleep (IO)|Uninterruptible Sleep (non-IO)|Sleeping"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* The runnable state before each Running one, and the last one with a waker not in an irq.
** sched.runnable's rows come from one pass over the importer's thread_state in C
** (thread_state_scans.c), which the fixture's stand-in view cannot feed: they run on imported
** stories. The rows are Perfetto's (trace_processor_shell v58.2 on the same files). In
** slices_thread_time's story the first Running rows have no runnable state before them and the
** R+ of a preemption has no waker. */
static void sched_runnable_latency(void **state) {
  (void)state;
  trak_processor *p = sc_open_file("tests/data/systrace/slice_states.systrace");
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE sched.runnable; SELECT * FROM sched_previous_runnable_on_thread",
       "0|NULL|NULL\n"
       "2|NULL|NULL\n"
       "4|3|3\n"
       "7|6|6\n"
       "10|9|9\n"
       "12|11|NULL"},
      {"INCLUDE PERFETTO MODULE sched.latency; SELECT * FROM sched_latency_for_running_interval",
       "4|2|1|3|1000\n"
       "7|4|1|6|1000\n"
       "10|6|1|9|1000\n"
       "12|8|2|11|15001"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  /* The C rows are what the SQL window over the R* rows gives. */
  static const char reference[] =
      "WITH r_states AS (SELECT id, utid, state, iif(state = 'Running', NULL, id) AS runnable_id, "
      "iif(waker_utid IS NOT NULL AND irq_context IS NOT 1, id, NULL) AS woken_id "
      "FROM thread_state WHERE state GLOB 'R*' AND dur != -1), "
      "running AS (SELECT id, state, max(runnable_id) OVER w AS prev_runnable_id, "
      "max(woken_id) OVER w AS prev_wakeup_runnable_id FROM r_states "
      "WINDOW w AS (PARTITION BY utid ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT "
      "ROW)) SELECT id, prev_runnable_id, prev_wakeup_runnable_id FROM running "
      "WHERE state = 'Running' ORDER BY id";
  sc_same_query(p, reference, "SELECT * FROM __trak_previous_runnable", "previous runnable");
  trak_processor_free(p);
  /* runnable_irq.systrace: a wakeup by swapper, an R+ without a waker (Running 6 goes back to
  ** the woken R 3), an unfinished D; Perfetto's rows. */
  p = sc_open_file("tests/data/systrace/runnable_irq.systrace");
  static const sc_check irq[] = {
      {"INCLUDE PERFETTO MODULE sched.runnable; SELECT * FROM sched_previous_runnable_on_thread",
       "0|NULL|NULL\n2|NULL|NULL\n4|3|3\n6|5|3\n9|8|8"},
      {"INCLUDE PERFETTO MODULE sched.latency; SELECT * FROM sched_latency_for_running_interval",
       "4|2|1|3|5001\n6|4|1|5|5000\n9|6|1|8|4999"},
  };
  sc_run_checks(p, irq, sizeof irq / sizeof *irq);
  sc_same_query(p, reference, "SELECT * FROM __trak_previous_runnable", "previous runnable");
  trak_processor_free(p);
  /* Two wakeups from interrupt context (irq_context 1) do not count as wakeups; Perfetto's
  ** sums. */
  p = sc_open_file("tests/data/golden/linux/sched_critical_path.pbtxt");
  assert_string_equal(sc_rows(p, "INCLUDE PERFETTO MODULE sched.latency; SELECT count(*), "
                                 "sum(prev_runnable_id), sum(prev_wakeup_runnable_id), "
                                 "count(prev_wakeup_runnable_id) FROM "
                                 "sched_previous_runnable_on_thread"),
                      "20|392|319|13");
  assert_string_equal(sc_rows(p, "SELECT count(*), sum(latency_dur), sum(runnable_latency_id) "
                                 "FROM sched_latency_for_running_interval"),
                      "14|2430|392");
  assert_string_equal(sc_rows(p, "SELECT count(*) FROM thread_state WHERE irq_context = 1"), "2");
  sc_same_query(p, reference, "SELECT * FROM __trak_previous_runnable", "previous runnable");
  trak_processor_free(p);
}

/* sched.thread_executing_span pairs each runnable state with the sleep it ends through an index
** on (utid, end_ts): both columns must be used, or each lookup scans the thread's sleeps and the
** module is quadratic in a thread's states (a 1 M event trace did not finish in 98 s). */
static void sched_critical_path_plan(void **state) {
  (void)state;
  trak_processor *p = sc_open_file("tests/data/golden/linux/sched_critical_path.pbtxt");
  const char *plan =
      sc_rows(p, "INCLUDE PERFETTO MODULE sched.thread_executing_span; "
                 "EXPLAIN QUERY PLAN SELECT * FROM _thread_executing_span_sleep_runnable");
  if (!strstr(plan, "(utid=? AND end_ts=?)")) {
    fprintf(stderr, "plan: %s\n", plan);
    fail();
  }
  /* The critical path over an interval looks its nodes and path pieces up by id through indexes,
  ** not by scanning them once per row (28 s instead of 1 s on 100 k events). */
  plan = sc_rows(p, "EXPLAIN QUERY PLAN SELECT * FROM _critical_path_by_intervals!((SELECT 2 AS "
                    "utid, trace_start() AS ts, trace_dur() AS dur), _wakeup_graph)");
  if (!strstr(plan, "SEARCH _root_nodes USING INDEX _wakeup_graph_id_idx") ||
      !strstr(plan, "SEARCH _nodes USING INDEX _wakeup_graph_id_idx") ||
      !strstr(plan, "SEARCH _span USING")) {
    fprintf(stderr, "plan: %s\n", plan);
    fail();
  }
  trak_processor_free(p);
}

/* The functions of sched.time_in_state over one interval (its tables read the importer's
** thread_state: sched_time_in_state_tables). */
static void sched_time_in_state(void **state) {
  (void)state;
  trak_processor *p = open_story();
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE sched.time_in_state; SELECT * FROM "
       "sched_time_in_state_for_thread_in_interval(100000, 100000, 2)",
       "Running|NULL|NULL|60000\n"
       "D|1|f|30000\n"
       "R|NULL|NULL|10000"},
      {"INCLUDE PERFETTO MODULE sched.time_in_state; SELECT * FROM "
       "sched_time_in_state_and_cpu_for_thread_in_interval(100000, 100000, 2) ORDER BY dur "
       "DESC, state, cpu",
       "D|1|NULL|f|30000\n"
       "Running|NULL|0|NULL|30000\n"
       "Running|NULL|1|NULL|30000\n"
       "R|NULL|NULL|NULL|10000"},
      {"INCLUDE PERFETTO MODULE sched.time_in_state; SELECT * FROM "
       "sched_time_in_state_for_cpu_in_interval(0, 0, 200000) ORDER BY end_state",
       "D|30000\n"
       "R|100000\n"
       "R+|70000"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

static void sched_context_and_parallelism(void **state) {
  (void)state;
  trak_processor *p = open_story();
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE sched.with_context; SELECT * FROM sched_with_thread_process "
       "WHERE utid != 0 ORDER BY id",
       "2|100000|30000|2|1|main|app|0|D|120\n"
       "3|130000|270000|3|1|worker|app|0|R+|120\n"
       "4|170000|80000|2|1|main|app|1|S|110\n"
       "7|450000|50000|3|1|worker|app|0|S|120"},
      {"INCLUDE PERFETTO MODULE sched.thread_level_parallelism; SELECT * FROM "
       "sched_runnable_thread_count",
       "90000|1\n100000|0\n120000|1\n130000|0\n160000|1\n170000|0"},
      {"INCLUDE PERFETTO MODULE sched.thread_level_parallelism; SELECT * FROM "
       "sched_uninterruptible_sleep_thread_count",
       "130000|1\n160000|0"},
      /* Swapper (utid 0, is_idle) does not make a CPU active. */
      {"INCLUDE PERFETTO MODULE sched.thread_level_parallelism; SELECT * FROM "
       "sched_active_cpu_count",
       "100000|1\n130000|1\n170000|2\n250000|1\n400000|0\n450000|1\n500000|0"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  /* The counts come from __trak_overlap_count (overlap_count.c), intervals_overlap_count!'s rows
  ** computed in C: an end meeting a start counts both, dur -1 and NULL never end, dur 0 ends
  ** where it starts. */
  static const char segs[] = "(SELECT column1 AS ts, column2 AS dur FROM (VALUES (0, 10), "
                             "(10, 5), (10, -1), (3, NULL), (20, 0), (5, 10)))";
  static const char want[] = "0|1\n3|2\n5|3\n10|4\n15|2\n20|2";
  char sql[512];
  snprintf(sql, sizeof sql,
           "INCLUDE PERFETTO MODULE intervals.overlap; "
           "SELECT * FROM intervals_overlap_count!(%s, ts, dur)",
           segs);
  assert_string_equal(sc_rows(p, sql), want);
  snprintf(sql, sizeof sql,
           "SELECT * FROM __trak_overlap_count((SELECT __trak_rows(ts, dur) "
           "FROM %s)) ORDER BY ts",
           segs);
  assert_string_equal(sc_rows(p, sql), want);
  assert_string_equal(sc_rows(p, "SELECT count(*) FROM __trak_overlap_count(NULL)"), "0");
  trak_processor_free(p);
}

/* Frequency and idle intervals run to the next change, the last to the trace's end; the idle
** value 4294967295 reads as -1. */
static void cpu_frequency_idle(void **state) {
  (void)state;
  trak_processor *p = open_story();
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE linux.cpu.frequency; SELECT * FROM cpu_frequency_counters "
       "ORDER BY track_id, ts",
       "0|0|0|150000|1000000|0|0\n"
       "3|0|150000|850000|2000000|0|0\n"
       "1|1|0|1000000|500000|1|1"},
      {"INCLUDE PERFETTO MODULE linux.cpu.idle; SELECT * FROM cpu_idle_counters ORDER BY ts",
       "2|2|0|300000|-1|0\n"
       "4|2|300000|700000|1|0"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* Cycles: worker on CPU 0 runs 20,000 ns at 1 GHz and 300,000 ns at 2 GHz: 620e6 millicycles
** over 320,000 ns, an average of 1,937,500 kHz. */
static void cpu_cycles(void **state) {
  (void)state;
  trak_processor *p = open_story();
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.thread_cpu; SELECT * FROM "
       "cpu_cycles_per_thread_per_cpu ORDER BY utid, ucpu",
       "2|0|0|30000000|0|30000|1000000|1000000|1000000\n"
       "2|1|1|40000000|0|80000|500000|500000|500000\n"
       "3|0|0|620000000|0|320000|1000000|2000000|1937500"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.thread; SELECT * FROM "
       "cpu_cycles_per_thread ORDER BY utid",
       "2|70000000|0|110000|500000|1000000|636363\n"
       "3|620000000|0|320000|1000000|2000000|1937500"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.process; SELECT * FROM "
       "cpu_cycles_per_process",
       "1|690000000|0|430000|500000|2000000|1604651"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.system; SELECT * FROM cpu_cycles",
       "690000000|0|430000|500000|2000000|1604651"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.system; SELECT * FROM cpu_cycles_per_cpu",
       "0|0|650000000|0|350000|1000000|2000000|1857142\n"
       "1|1|40000000|0|80000|500000|500000|500000"},
      /* Half the trace: worker's [130k,400k) is cut at 300k, main runs 110k. */
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.thread; SELECT utid, millicycles, "
       "runtime, awake_runtime, avg_freq FROM cpu_cycles_per_thread_in_interval(0, 300000) "
       "ORDER BY utid",
       "2|70000000|110000|110000|636363\n"
       "3|320000000|170000|170000|1882352"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.system; SELECT * FROM "
       "cpu_cycles_in_interval(0, 1000000)",
       "690000000|0|430000|430000|500000|2000000|1604651"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.system; SELECT * FROM "
       "cpu_cycles_per_cpu_in_interval(0, 200000) ORDER BY ucpu",
       "0|0|150000000|0|100000|1000000|2000000|1500000\n"
       "1|1|15000000|0|30000|500000|500000|500000"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* Utilization: all running time starts in the first 500,000 ns period; with two CPUs the
** system's 430,000 ns make 0.43 (0.86 unnormalized). */
static void cpu_utilization(void **state) {
  (void)state;
  trak_processor *p = open_story();
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.system; SELECT * FROM "
       "cpu_utilization_per_period(500000)",
       "0|0.43|0.86"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.system; SELECT * FROM "
       "cpu_utilization_per_second",
       "0|0.000215|0.00043"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.thread; SELECT * FROM "
       "cpu_thread_utilization_per_period(500000, 3)",
       "0|0.32|0.64"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.process; SELECT * FROM "
       "cpu_process_utilization_per_period(500000, 1)",
       "0|0.43|0.86"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.thread; SELECT * FROM "
       "cpu_thread_utilization_in_interval(0, 1000000) ORDER BY utid",
       "1|2|main|110000|5.5|11.0\n"
       "1|3|worker|320000|16.0|32.0"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.process; SELECT * FROM "
       "cpu_process_utilization_in_interval(0, 1000000)",
       "1|app|430000|21.5|43.0"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.system; SELECT * FROM "
       "cpu_utilization_in_interval(0, 1000000)",
       "430000|21.5|43.0"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* Only "tight" ran its whole duration at a known frequency (40,000 ns at 2 GHz). */
static void slices_cpu(void **state) {
  (void)state;
  trak_processor *p = open_story();
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE slices.cpu_time; SELECT * FROM thread_slice_cpu_cycles ORDER "
       "BY id",
       "0|job|3|worker|1|app|NULL|NULL\n"
       "1|work|2|main|1|app|NULL|NULL\n"
       "2|inner|2|main|1|app|NULL|NULL\n"
       "3|tight|3|worker|1|app|80000000|0"},
      {"INCLUDE PERFETTO MODULE linux.cpu.utilization.slice; SELECT id, millicycles FROM "
       "cpu_cycles_per_thread_slice_in_interval(100000, 30000) ORDER BY id",
       "0|NULL\n"
       "1|30000000\n"
       "2|10000000"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* slices.time_in_state and slices.cpu_time meet the slices with the thread_state and sched
** rows the importer filled, in C (slice_thread_time.c): the fixture's stand-in views cannot
** feed them, so they run on a systrace story (tests/data/systrace/slice_states.systrace; the
** goldens slice_states_* hold Perfetto's full answers). "outer" [10,100) us and "inner"
** [20,85) us of app: 10 us in each of three D states (no blocked reason, IO 0 in f0, IO 1 in
** f1), 3 us runnable, the rest running; "zero" (dur 0), "open" (unfinished) and "lonely" (a
** thread without scheduling data) have no rows. */
static void slices_thread_time(void **state) {
  (void)state;
  trak_processor *p = sc_open_file("tests/data/systrace/slice_states.systrace");
  /* The C tables' rows are what _interval_intersect! of the same intervals gives. */
  static const char reference[] =
      "SELECT ii.id_0, st.state, st.io_wait, st.blocked_function, sum(ii.dur) "
      "FROM _thread_slice_intersect!((SELECT id, ts, dur, utid FROM thread_state "
      "WHERE dur > 0)) AS ii JOIN thread_state AS st ON st.id = ii.id_1 "
      "GROUP BY ii.id_0, st.state, st.io_wait, st.blocked_function";
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE slices.time_in_state; SELECT id, name, utid, state, io_wait, "
       "blocked_function, dur FROM thread_slice_time_in_state",
       "0|outer|1|D|NULL|NULL|10000\n"
       "0|outer|1|D|0|f0+0x4/0x8|10000\n"
       "0|outer|1|D|1|f1+0x10/0x20|10000\n"
       "0|outer|1|R|NULL|NULL|3000\n"
       "0|outer|1|Running|NULL|NULL|57000\n"
       "1|inner|1|D|NULL|NULL|10000\n"
       "1|inner|1|D|0|f0+0x4/0x8|10000\n"
       "1|inner|1|D|1|f1+0x10/0x20|10000\n"
       "1|inner|1|R|NULL|NULL|3000\n"
       "1|inner|1|Running|NULL|NULL|32000\n"
       "2|wjob|2|Running|NULL|NULL|56000\n"
       "4|wtail|2|Running|NULL|NULL|29001"},
      {"INCLUDE PERFETTO MODULE slices.cpu_time; SELECT * FROM thread_slice_cpu_time",
       "0|outer|1|app|1|NULL|57000\n"
       "1|inner|1|app|1|NULL|32000\n"
       "2|wjob|2|worker|1|NULL|56000\n"
       "4|wtail|2|worker|1|NULL|29001"},
      /* The order is the table function's own: no sort undoes a wrong one. */
      {"SELECT count(*) FROM __trak_thread_slice_time_in_state", "12"},
      {"SELECT id, state, io_wait FROM __trak_thread_slice_time_in_state WHERE id = 1 "
       "ORDER BY id, state, io_wait, blocked_function",
       "1|D|NULL\n1|D|0\n1|D|1\n1|R|NULL\n1|Running|NULL"},
      /* `id = x` reads that slice's rows from the answer kept after the first scan; a real
      ** id matches as SQLite compares, other values match nothing. */
      {"SELECT count(*), sum(dur) FROM thread_slice_time_in_state WHERE id = 4", "1|29001"},
      {"SELECT count(*), sum(dur) FROM thread_slice_time_in_state WHERE id = 1.0", "5|65000"},
      {"SELECT count(*) FROM thread_slice_time_in_state WHERE id = 1.5 OR id = 99 OR id = -1 "
       "OR id = 'x'",
       "0"},
      {"SELECT count(*), sum(cpu_time) FROM thread_slice_cpu_time WHERE id = 2", "1|56000"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  /* The modules' names are views of the C tables (no SQLite table copies their rows), and an
  ** id is looked up, not scanned for. */
  const char *plan =
      sc_rows(p, "EXPLAIN QUERY PLAN SELECT dur FROM thread_slice_time_in_state WHERE id = 4");
  if (!strstr(plan, "SCAN __trak_thread_slice_time_in_state VIRTUAL TABLE INDEX 1")) {
    fprintf(stderr, "plan: %s\n", plan);
    fail();
  }
  sc_rows(p, "INCLUDE PERFETTO MODULE intervals.intersect; "
             "INCLUDE PERFETTO MODULE slices.with_context; SELECT 1");
  assert_int_equal(sc_int(p,
                          "SELECT count(*) FROM (SELECT id, state, io_wait, blocked_function, "
                          "dur FROM __trak_thread_slice_time_in_state EXCEPT %s)",
                          reference),
                   0);
  assert_int_equal(sc_int(p,
                          "SELECT count(*) FROM (%s EXCEPT SELECT id, state, io_wait, "
                          "blocked_function, dur FROM __trak_thread_slice_time_in_state)",
                          reference),
                   0);
  trak_processor_free(p);
}

/* sched.time_in_state's tables sum the importer's thread_state in C (thread_state_scans.c), which
** the fixture's stand-in view cannot feed: they run on the systrace story of slices_thread_time.
** The rows are Perfetto's (trace_processor_shell v58.2 on the same file); each thread's
** unfinished S counts -1, as Perfetto sums durations. */
static void sched_time_in_state_tables(void **state) {
  (void)state;
  trak_processor *p = sc_open_file("tests/data/systrace/slice_states.systrace");
  static const sc_check c[] = {
      /* no ORDER BY: the table's own order is GROUP BY utid, state's */
      {"INCLUDE PERFETTO MODULE sched.time_in_state; SELECT * FROM "
       "sched_time_in_state_for_thread",
       "1|139999|D|30000|21\n"
       "1|139999|R|3000|2\n"
       "1|139999|Running|107000|76\n"
       "1|139999|S|-1|0\n"
       "2|119999|R+|15001|12\n"
       "2|119999|Running|104999|87\n"
       "2|119999|S|-1|0"},
      {"INCLUDE PERFETTO MODULE sched.time_in_state; SELECT * FROM "
       "sched_percentage_of_time_in_state ORDER BY utid",
       "1|76|2|NULL|0|21|NULL\n"
       "2|87|NULL|12|0|NULL|NULL"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  /* The C sums are SQLite's GROUP BY of the same rows, in its order. */
  static const char reference[] =
      "SELECT utid, state, sum(dur) FROM thread_state GROUP BY utid, state";
  sc_same_query(p, reference,
                "SELECT utid, state, time_in_state AS \"sum(dur)\" FROM __trak_thread_state_time",
                "thread_state sums");
  trak_processor_free(p);
}

/* describe_slice gives each slice's time per kind of state and its CPUs where scheduling data
** covers it (the sums of slices_thread_time's rows), with or without a rule describing it; the
** built-in metric slice_time_in_state sums them per slice name in sched.states' words. */
static void slices_thread_time_analysis(void **state) {
  (void)state;
  trak_processor *p = sc_open_file("tests/data/systrace/slice_states.systrace");
  static const char rule[] = "rule { name: \"wjob\" description: \"The worker's job.\" }";
  trak_error err = {0};
  assert_int_equal(trak_processor_add_descriptions(p, rule, sizeof rule - 1, "rule", &err), 0);
  static const char *const metric[] = {"slice_time_in_state"};
  assert_int_equal(trak_processor_compute_metrics(p, metric, 1, NULL, &err), 0);
  static const sc_check c[] = {
      {"SELECT s.id, d.description, d.running_dur, d.runnable_dur, d.sleeping_dur, "
       "d.uninterruptible_dur, d.io_wait_dur, d.other_dur, d.cpus FROM slice s "
       "JOIN describe_slice d ON d.slice_id = s.id ORDER BY s.id",
       "0|NULL|57000|3000|0|30000|10000|0|0,1\n"
       "1|NULL|32000|3000|0|30000|10000|0|0,1\n"
       "2|The worker's job.|56000|0|0|0|0|0|0\n"
       "4|NULL|29001|0|0|0|0|0|0"},
      /* "zero", "open" and "lonely" have neither a rule nor scheduling data. */
      {"SELECT count(*) FROM describe_slice WHERE slice_id IN (3, 5, 6)", "0"},
      {"SELECT * FROM slice_time_in_state_output WHERE name = 'inner'",
       "inner|Running|1|32000|49.23\n"
       "inner|Uninterruptible Sleep|1|10000|15.38\n"
       "inner|Uninterruptible Sleep (IO)|1|10000|15.38\n"
       "inner|Uninterruptible Sleep (non-IO)|1|10000|15.38\n"
       "inner|Runnable|1|3000|4.62"},
      {"SELECT count(*), sum(dur) FROM slice_time_in_state_output", "12|240001"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* kthreadd (pid 2) and its children are the kernel's threads; init's children are not. */
static void linux_threads(void **state) {
  (void)state;
  trak_processor *p = sc_open_file("tests/data/linux/kernel_threads.pbtxt");
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE linux.threads; SELECT * FROM linux_kernel_threads ORDER BY utid",
       "2|2|2|2|kthreadd|NULL|0\n"
       "3|3|3|3|ksoftirqd/0|NULL|0\n"
       "3|6|3|4|ksoftirqd/0|ksoftirqd/0|0"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sched_states),
      cmocka_unit_test(sched_runnable_latency),
      cmocka_unit_test(sched_critical_path_plan),
      cmocka_unit_test(sched_time_in_state),
      cmocka_unit_test(sched_time_in_state_tables),
      cmocka_unit_test(sched_context_and_parallelism),
      cmocka_unit_test(cpu_frequency_idle),
      cmocka_unit_test(cpu_cycles),
      cmocka_unit_test(cpu_utilization),
      cmocka_unit_test(slices_cpu),
      cmocka_unit_test(slices_thread_time),
      cmocka_unit_test(slices_thread_time_analysis),
      cmocka_unit_test(linux_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
