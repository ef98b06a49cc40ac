/*
** Unit tests of src/processor/import/threads.c, thread and process identity in Perfetto's model,
** driven through its functions on a bare importer (no trace): the idle rows, a process made
** with its main thread, threads found by (pid, tid) and by tid alone, tid reuse, pid reuse
** ending the old process's threads, machines with their own ids, names by priority, and the
** memo of tid look-ups following every change.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "import_fixture.h"

#define setup import_fixture_setup
#define teardown import_fixture_teardown

static uint32_t str(fixture *f, const char *s) {
  return trak__strpool_intern(&f->tables.strings, s, strlen(s));
}

static const char *thread_name(fixture *f, uint32_t utid) {
  return trak__str(&f->tables.strings, f->tables.thread.name[utid]);
}

/* utid 0 and upid 0 are the idle rows: pid 0 and tid 0 find them, named "swapper". */
static void test_idle_rows(void **state) {
  fixture *f = *state;
  assert_int_equal(f->tables.thread.n, 1);
  assert_int_equal(f->tables.process.n, 1);
  assert_int_equal(trak__thread_for_tid(&f->imp, 0, 0), 0);
  assert_int_equal(trak__process_for_pid(&f->imp, 0), 0);
  assert_string_equal(thread_name(f, 0), "swapper");
  assert_int_equal(f->tables.thread.is_idle[0], 1);
  assert_int_equal(f->tables.thread.n, 1); /* nothing new was made */
}

/* A process comes with its main thread (tid == pid) at once; asking again finds the same rows. */
static void test_process_with_main_thread(void **state) {
  fixture *f = *state;
  uint32_t upid = trak__process_for_pid(&f->imp, 100);
  assert_int_equal(f->tables.process.pid[upid], 100);
  uint32_t main = trak__thread_for_tid(&f->imp, 100, 100);
  assert_int_equal(f->tables.thread.tid[main], 100);
  assert_int_equal(f->tables.thread.upid[main], upid);
  assert_int_equal(f->tables.thread.is_main[main], 1);
  assert_int_equal(trak__process_for_pid(&f->imp, 100), upid);
  size_t threads = f->tables.thread.n;
  uint32_t worker = trak__thread_for_tid(&f->imp, 101, 100);
  assert_int_equal(f->tables.thread.n, threads + 1);
  assert_int_equal(f->tables.thread.upid[worker], upid);
  assert_int_equal(f->tables.thread.is_main[worker], 0);
  assert_int_equal(trak__thread_for_tid(&f->imp, 101, 100), worker);
}

/* With the pid unknown (< 0), a tid finds its newest live thread in any process, or makes a
** thread without a process; a later (pid, tid) adopts that thread. */
static void test_tid_without_pid(void **state) {
  fixture *f = *state;
  uint32_t worker = trak__thread_for_tid(&f->imp, 201, 200);
  assert_int_equal(trak__thread_for_tid(&f->imp, 201, -1), worker);
  uint32_t orphan = trak__thread_for_tid(&f->imp, 301, -1);
  assert_int_equal(f->tables.thread.upid[orphan], TRAK_NULL_U32);
  uint32_t adopted = trak__thread_for_tid(&f->imp, 301, 300);
  assert_int_equal(adopted, orphan);
  assert_int_equal(f->tables.thread.upid[adopted], trak__process_for_pid(&f->imp, 300));
}

/* A reused tid is a new row; the tid then finds the new one. */
static void test_tid_reuse(void **state) {
  fixture *f = *state;
  uint32_t first = trak__thread_for_tid(&f->imp, 401, 400);
  uint32_t second = trak__thread_start_new(&f->imp, 401, 400);
  assert_int_not_equal(first, second);
  assert_int_equal(trak__thread_for_tid(&f->imp, 401, 400), second);
  assert_int_equal(trak__thread_for_tid(&f->imp, 401, -1), second);
}

/* A new process for a pid ends the old one and its threads: their tids find new rows. */
static void test_pid_reuse(void **state) {
  fixture *f = *state;
  uint32_t old = trak__process_for_pid(&f->imp, 500);
  uint32_t old_worker = trak__thread_for_tid(&f->imp, 501, 500);
  uint32_t fresh = trak__process_start_new(&f->imp, 500);
  assert_int_not_equal(old, fresh);
  assert_int_equal(trak__process_for_pid(&f->imp, 500), fresh);
  uint32_t main = trak__thread_for_tid(&f->imp, 500, 500);
  assert_int_equal(f->tables.thread.upid[main], fresh);
  uint32_t worker = trak__thread_for_tid(&f->imp, 501, 500);
  assert_int_not_equal(worker, old_worker);
  assert_int_equal(f->tables.thread.upid[worker], fresh);
}

/* Each machine has its own pids, tids and idle rows; switching back finds the host's rows. A
** machine id on the first packet names the host itself (a trace recorded on a guest only). */
static void test_machines(void **state) {
  fixture *f = *state;
  uint32_t host = trak__thread_for_tid(&f->imp, 601, 600);
  f->imp.packet_index = 1;
  trak__machine_switch(&f->imp, 1, 42);
  assert_int_equal(f->tables.machine.n, 2);
  uint32_t guest = trak__thread_for_tid(&f->imp, 601, 600);
  assert_int_not_equal(host, guest);
  assert_int_equal(f->tables.thread.machine_id[guest], 1);
  uint32_t guest_idle = trak__thread_for_tid(&f->imp, 0, 0);
  assert_int_not_equal(guest_idle, 0);
  assert_int_equal(f->tables.thread.is_idle[guest_idle], 1);
  trak__machine_switch(&f->imp, 0, 0);
  assert_int_equal(trak__thread_for_tid(&f->imp, 601, 600), host);
}

static void test_first_packet_names_host(void **state) {
  fixture *f = *state;
  trak__machine_switch(&f->imp, 1, 42);
  assert_int_equal(f->tables.machine.n, 1);
  assert_int_equal(f->tables.machine.raw_id[0], 42);
  assert_int_equal(trak__thread_for_tid(&f->imp, 0, 0), 0);
}

/* A name replaces one of lower priority only; the constant "swapper" stays. */
static void test_name_priorities(void **state) {
  fixture *f = *state;
  uint32_t utid = trak__thread_for_tid(&f->imp, 701, 700);
  trak__thread_name_set(&f->imp, utid, str(f, "from-tree"), TRAK_THREAD_NAME_PROCESS_TREE);
  assert_string_equal(thread_name(f, utid), "from-tree");
  trak__thread_name_set(&f->imp, utid, str(f, "from-ftrace"), TRAK_THREAD_NAME_KERNEL);
  assert_string_equal(thread_name(f, utid), "from-tree");
  trak__thread_name_set(&f->imp, utid, str(f, "from-descriptor"), TRAK_THREAD_NAME_DESCRIPTOR);
  assert_string_equal(thread_name(f, utid), "from-descriptor");
  trak__thread_name_set(&f->imp, utid, 0, TRAK_THREAD_NAME_CONSTANT); /* name 0: no change */
  assert_string_equal(thread_name(f, utid), "from-descriptor");
  trak__thread_name_set(&f->imp, 0, str(f, "init"), TRAK_THREAD_NAME_DESCRIPTOR);
  assert_string_equal(thread_name(f, 0), "swapper");
}

/* The memo of look-ups by tid alone answers as the indexes do after each change that moves a
** tid to another row: a thread ended, a tid reused, a pid reused, a machine switched, and tids
** that share a memo slot (TRAK_TID_MEMO apart). */
static void test_tid_memo_follows_changes(void **state) {
  fixture *f = *state;
  trak_importer *imp = &f->imp;
  uint32_t a = trak__thread_for_tid(imp, 801, -1);
  assert_int_equal(trak__thread_for_tid(imp, 801, -1), a); /* from the memo */
  uint32_t b = trak__thread_for_tid(imp, 801 + TRAK_TID_MEMO, -1);
  assert_int_not_equal(a, b);
  assert_int_equal(trak__thread_for_tid(imp, 801, -1), a);
  assert_int_equal(trak__thread_for_tid(imp, 801 + TRAK_TID_MEMO, -1), b);
  /* ended: the tid finds a new row */
  assert_int_equal(trak__thread_end(imp, 801, 10), a);
  uint32_t a2 = trak__thread_for_tid(imp, 801, -1);
  assert_int_not_equal(a2, a);
  assert_int_equal(trak__thread_for_tid(imp, 801, -1), a2);
  /* reused: the newest */
  uint32_t a3 = trak__thread_start_new(imp, 801, 800);
  assert_int_not_equal(a3, a2);
  assert_int_equal(trak__thread_for_tid(imp, 801, -1), a3);
  /* the pid reused: the old process's threads are no longer alive */
  uint32_t w = trak__thread_for_tid(imp, 802, 800);
  assert_int_equal(trak__thread_for_tid(imp, 802, -1), w);
  trak__process_start_new(imp, 800);
  uint32_t w2 = trak__thread_for_tid(imp, 802, -1);
  assert_int_not_equal(w2, w);
  assert_int_equal(f->tables.thread.upid[w2], TRAK_NULL_U32);
  /* another machine has its own tids */
  imp->packet_index = 1;
  trak__machine_switch(imp, 1, 7);
  uint32_t g = trak__thread_for_tid(imp, 802, -1);
  assert_int_not_equal(g, w2);
  assert_int_equal(trak__thread_for_tid(imp, 802, -1), g);
  trak__machine_switch(imp, 0, 0);
  assert_int_equal(trak__thread_for_tid(imp, 802, -1), w2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_idle_rows, setup, teardown),
      cmocka_unit_test_setup_teardown(test_process_with_main_thread, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tid_without_pid, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tid_reuse, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pid_reuse, setup, teardown),
      cmocka_unit_test_setup_teardown(test_machines, setup, teardown),
      cmocka_unit_test_setup_teardown(test_first_packet_names_host, setup, teardown),
      cmocka_unit_test_setup_teardown(test_name_priorities, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tid_memo_follows_changes, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
