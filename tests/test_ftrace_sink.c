/*
** Tests of the Linux event sink (src/processor/import/ftrace/ftrace.h) driven directly, as a
** front-end drives it: a small scheduling story whose sched, thread_state,
** spurious_sched_wakeup, ftrace_event, cpu, cpu_counter_track, thread and process rows were
** worked out by hand from the rules in docs/design/linux-import.md.
**
** The story (tids: 10 "a", 20 "b"; 0 the swapper):
**   100 cpu0 switch swapper -> a          150 a wakes b (hardirq flags 0x08)
**   160 cpu1 switch swapper -> b          200 cpu0 switch a (S) -> swapper
**   210 a blocked in io at "do_sys_poll"  250 swapper wakes b (running: spurious)
**   300 b forks 30 "c"                    310 30 renamed "cc"        400 30 freed
**   320 cpu1 event "foo_event" by b with arg x=5;  cpufreq cpu0 1000 at 100
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
#include "sqlcheck.h"

static uint32_t str(trak_processor *p, const char *s) {
  return trak__strpool_intern(&p->tables.strings, s, strlen(s));
}

static trak_processor *story(void) {
  trak_processor *p;
  trak_error err = {0};
  assert_int_equal(trak_processor_new(NULL, &p, &err), 0);
  const char *text = "packet { timestamp: 1 trusted_packet_sequence_id: 1 }";
  assert_int_equal(trak_processor_feed(p, text, strlen(text), &err), 0);
  trak_importer *imp = p->imp;
  /* queued out of order on purpose: the sink sorts */
  trak__sched_switch(imp, 1, 160, -1, 0, str(p, "swapper/1"), 120, 0, 20, str(p, "b"), 120);
  trak__sched_switch(imp, 0, 100, -1, 0, str(p, "swapper/0"), 120, 0, 10, str(p, "a"), 120);
  trak__sched_waking(imp, 0, 150, 0x08, 10, 20, str(p, "b"), 120, 1, str(p, "sched_waking"));
  trak__sched_switch(imp, 0, 200, -1, 10, str(p, "a"), 120, 1, 0, str(p, "swapper/0"), 120);
  trak__sched_blocked_reason(imp, 210, 10, 1, str(p, "do_sys_poll"));
  trak__sched_waking(imp, 1, 250, TRAK_FTRACE_NO_FLAGS, 0, 20, str(p, "b"), 120, 1, 0);
  trak__task_newtask(imp, 1, 300, 20, 30, str(p, "c"), 0);
  trak__task_rename(imp, 310, 30, str(p, "cc"));
  trak__process_free(imp, 400, 30);
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_int(imp, set, str(p, "x"), 5);
  trak__ftrace_generic(imp, 1, 320, 20, str(p, "foo_event"), 0, set, 0);
  trak__cpu_counter(imp, TRAK_TK_CPU_FREQUENCY, 0, 100, 1000);
  assert_int_equal(trak_processor_finish(p, &err), 0);
  return p;
}

static void test_sched(void **state) {
  trak_processor *p = story();
  sc_check c[] = {
      {"SELECT ts, dur, cpu, thread.name, end_state, priority, ts_end FROM sched "
       "JOIN thread USING(utid) ORDER BY sched.id",
       "100|100|0|a|S|120|200\n160|-1|1|b|NULL|120|159\n200|-1|0|swapper|NULL|120|199"},
      {"SELECT count(*) FROM sched_slice", "3"},
      {"SELECT id, ucpu, cpu, machine_id FROM cpu", "0|0|0|0\n1|1|1|0"},
      {"SELECT name, value FROM stats WHERE name IN ('mismatched_sched_switch_tids', "
       "'task_state_invalid') ORDER BY name",
       "mismatched_sched_switch_tids|0\ntask_state_invalid|0"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
  (void)state;
}

static void test_thread_state(void **state) {
  trak_processor *p = story();
  sc_check c[] = {
      {"SELECT ts.id, ts.ts, ts.dur, ts.cpu, t.name, ts.state, ts.io_wait, ts.blocked_function, "
       "w.name, ts.waker_id, ts.irq_context FROM thread_state ts JOIN thread t USING(utid) "
       "LEFT JOIN thread w ON w.utid = ts.waker_utid ORDER BY ts.id",
       "0|100|100|0|a|Running|NULL|NULL|NULL|NULL|NULL\n"
       /* the waking's hardirq flags stay in its ftrace_event row: as in Perfetto, only compact
       ** wakings give irq_context */
       "1|150|10|NULL|b|R|NULL|NULL|a|0|NULL\n"
       "2|160|-1|1|b|Running|NULL|NULL|NULL|NULL|NULL\n"
       "3|200|-1|NULL|a|S|1|do_sys_poll|NULL|NULL|NULL\n"
       "4|300|-1|NULL|cc|R|NULL|NULL|b|2|0"},
      {"SELECT s.ts, s.thread_state_id, s.irq_context, t.name, s.waker_utid "
       "FROM spurious_sched_wakeup s JOIN thread t USING(utid)",
       "250|2|NULL|b|0"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
  (void)state;
}

static void test_processes_and_raw(void **state) {
  trak_processor *p = story();
  sc_check c[] = {
      {"SELECT t.tid, t.name, t.start_ts, t.end_ts, pr.pid, pr.name, pr.start_ts, pr.end_ts, "
       "par.pid FROM thread t JOIN process pr USING(upid) LEFT JOIN process par "
       "ON par.upid = pr.parent_upid WHERE t.tid = 30",
       "30|cc|300|400|30|cc|300|400|NULL"},
      {"SELECT ts, name, cpu, utid IS NOT NULL, common_flags FROM raw ORDER BY id",
       "100|sched_switch|0|1|0\n150|sched_waking|0|1|8\n160|sched_switch|1|1|0\n"
       "200|sched_switch|0|1|0\n320|foo_event|1|1|0"},
      {"SELECT group_concat(key || '=' || display_value, ' ') FROM raw JOIN args USING(arg_set_id) "
       "WHERE raw.ts = 200",
       "prev_comm=a prev_pid=10 prev_prio=120 prev_state=1 next_comm=swapper/0 next_pid=0 "
       "next_prio=120"},
      {"SELECT key, int_value FROM raw JOIN args USING(arg_set_id) WHERE name = 'foo_event'",
       "x|5"},
      {"SELECT t.name, t.type, c.cpu, v.ts, v.value FROM cpu_counter_track c "
       "JOIN track t USING(id) JOIN counter v ON v.track_id = c.id",
       "cpufreq|cpu_frequency|0|100|1000.0"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
  (void)state;
}

/* ftrace_cpu_has_data_loss as the stats API (trak check's explanations) gives it; -1: absent. */
static int64_t api_data_loss(trak_processor *p) {
  int64_t loss = -1;
  for (size_t i = 0; i < trak_processor_stat_count(p); i++) {
    trak_stat st;
    assert_int_equal(trak_processor_stat_get(p, i, &st), 0);
    if (!strcmp(st.name, "ftrace_cpu_has_data_loss")) loss = st.value;
  }
  return loss;
}

/* tests/data/linux/ftrace_bundle.pbtxt through the protobuf front-end (proto/ftrace_bundle.c):
** typed sched_switch and sched_waking, a print marker pair (a thread slice), cpu_frequency on
** cpu 0; on cpu 1 a compact_sched bundle (its first switch only primes the CPU with the
** swapper; its waking of a, who is running, is spurious) flagged lost_events; FtraceStats at
** the start and end. */
/* The comms' memo (comm_ids.c) gives the string pool's ids: strings of every length around its
** word sizes, strings that differ only in their last byte or only inside, and more strings than
** it has slots (so that slots are taken over), each asked twice. */
static void test_comm_memo(void **state) {
  (void)state;
  trak_processor *p;
  trak_error err = {0};
  assert_int_equal(trak_processor_new(NULL, &p, &err), 0);
  trak_importer *imp = p->imp;
  const char *alphabet = "abcdefghijklmnopqrstuvwxyz";
  char buf[32];
  for (int round = 0; round < 2; round++) {
    for (size_t len = 0; len <= 20; len++) {
      memcpy(buf, alphabet, len);
      uint32_t id = trak__ftrace_comm(imp, (const uint8_t *)buf, len);
      assert_int_equal(id, trak__strpool_intern(&p->tables.strings, buf, len));
      for (size_t i = 0; i < len; i++) { /* one byte changed, anywhere */
        memcpy(buf, alphabet, len);
        buf[i] = 'Z';
        id = trak__ftrace_comm(imp, (const uint8_t *)buf, len);
        assert_int_equal(id, trak__strpool_intern(&p->tables.strings, buf, len));
        assert_string_equal(trak__str(&p->tables.strings, id), (buf[len] = 0, buf));
      }
    }
    for (int t = 0; t < 5000; t++) {
      int n = snprintf(buf, sizeof buf, "worker-%d", t);
      uint32_t id = trak__ftrace_comm(imp, (const uint8_t *)buf, (size_t)n);
      assert_int_equal(id, trak__strpool_intern(&p->tables.strings, buf, (size_t)n));
    }
  }
  trak_processor_free(p);
}

static void test_proto_bundle(void **state) {
  trak_processor *p = sc_open_file("tests/data/linux/ftrace_bundle.pbtxt");
  sc_check c[] = {
      {"SELECT ts, dur, cpu, utid, end_state FROM sched",
       "100|100|0|1|S\n160|40|1|2|S\n200|-1|0|0|NULL\n200|-1|1|0|NULL"},
      {"SELECT ts, dur, cpu, utid, state, waker_utid, irq_context FROM thread_state",
       /* irq_context NULL despite the waking's common_flags, as trace_processor_shell v58.2 */
       "100|100|0|1|Running|NULL|NULL\n150|10|NULL|2|R|1|NULL\n160|40|1|2|Running|NULL|NULL\n"
       "200|-1|NULL|1|S|NULL|NULL\n200|-1|NULL|2|S|NULL|NULL"},
      /* a compact waking without waking_common_flags: irq_context 0, as trace_processor_shell
      ** v58.2 answers on this trace */
      {"SELECT * FROM spurious_sched_wakeup", "0|158|0|0|1|0"},
      {"SELECT ts, name, cpu, utid FROM raw",
       "100|sched_switch|0|0\n150|sched_waking|0|1\n158|sched_waking|1|0\n160|print|0|1\n"
       "160|sched_switch|1|0\n170|print|0|1\n180|cpu_frequency|0|1\n200|sched_switch|0|1\n"
       "200|sched_switch|1|2"},
      {"SELECT key, display_value FROM raw JOIN args USING(arg_set_id) WHERE raw.ts = 150",
       "comm|b\npid|20\nprio|120\ntarget_cpu|1"},
      {"SELECT s.ts, s.dur, s.name, t.tid FROM slice s JOIN thread_track tt ON s.track_id = tt.id "
       "JOIN thread t USING(utid)",
       "160|10|hello|10"},
      {"SELECT name, type, cpu FROM cpu_counter_track", "cpufreq|cpu_frequency|0"},
      {"SELECT value FROM counter", "1500000.0"},
      {"SELECT name, value FROM stats WHERE name = 'compact_sched_switch_skipped'",
       "compact_sched_switch_skipped|1"},
      {"SELECT name, idx, value, severity FROM stats WHERE name GLOB 'ftrace_cpu_*' AND "
       "(name GLOB '*entries*' OR name GLOB '*overrun_delta' OR name GLOB '*loss' OR "
       "name GLOB '*oldest*' OR name = 'ftrace_cpu_now_ts_end') ORDER BY id",
       "ftrace_cpu_entries_begin|0|10|info\nftrace_cpu_entries_begin|1|20|info\n"
       "ftrace_cpu_entries_end|0|15|info\nftrace_cpu_entries_end|1|26|info\n"
       "ftrace_cpu_entries_delta|0|5|info\nftrace_cpu_entries_delta|1|6|info\n"
       "ftrace_cpu_overrun_delta|0|0|info\nftrace_cpu_overrun_delta|1|2|info\n"
       "ftrace_cpu_commit_overrun_delta|0|0|info\nftrace_cpu_commit_overrun_delta|1|0|info\n"
       "ftrace_cpu_now_ts_end|0|2500000000|info\nftrace_cpu_now_ts_end|1|2500000000|info\n"
       "ftrace_cpu_oldest_event_ts_begin|0|1250000000|info\n"
       "ftrace_cpu_oldest_event_ts_begin|1|0|info\n"
       "ftrace_cpu_oldest_event_ts_end|0|0|info\nftrace_cpu_oldest_event_ts_end|1|0|info\n"
       "ftrace_cpu_has_data_loss|1|1|data_loss"},
      {"SELECT id, cpu FROM cpu", "0|0\n1|1"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  /* the stats API (trak check's explanations) lists the data loss summed over CPUs */
  assert_int_equal(api_data_loss(p), 1);
  trak_processor_free(p);
  (void)state;
}

/* ftrace_cpu_has_data_loss is a flag per CPU, as Perfetto's SetIndexedStats makes it: three
** bundles of cpu 1 and one of cpu 0 said lost_events (each CPU 1, not the bundles' count, as
** trace_processor_shell v58.2 answers on a trak probes recording with 3 and 26 such bundles). */
static void test_data_loss_is_a_flag(void **state) {
  trak_processor *p =
      sc_open("packet { trusted_packet_sequence_id: 1 ftrace_events { cpu: 1 lost_events: true "
              "event { timestamp: 100 pid: 0 print { buf: \"a\" } } } }\n"
              "packet { trusted_packet_sequence_id: 1 ftrace_events { cpu: 1 lost_events: true "
              "event { timestamp: 200 pid: 0 print { buf: \"b\" } } } }\n"
              "packet { trusted_packet_sequence_id: 1 ftrace_events { cpu: 0 lost_events: true "
              "event { timestamp: 250 pid: 0 print { buf: \"c\" } } } }\n"
              "packet { trusted_packet_sequence_id: 1 ftrace_events { cpu: 1 lost_events: true "
              "event { timestamp: 300 pid: 0 print { buf: \"d\" } } } }\n");
  sc_check c[] = {
      {"SELECT idx, value FROM stats WHERE name = 'ftrace_cpu_has_data_loss' ORDER BY idx",
       "0|1\n1|1"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  assert_int_equal(api_data_loss(p), 2); /* the stats API: how many CPUs lost data */
  trak_processor_free(p);
  (void)state;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sched),
      cmocka_unit_test(test_thread_state),
      cmocka_unit_test(test_processes_and_raw),
      cmocka_unit_test(test_proto_bundle),
      cmocka_unit_test(test_comm_memo),
      cmocka_unit_test(test_data_loss_is_a_flag),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
