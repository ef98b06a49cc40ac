/*
** A data source registered in a system producer while a daemon session already records that
** producer joins the producer's part of the session: the producer's session is an ordinary
** started session (tolerating names it lacks), so the registration sets the instance up,
** starts it and enables it there, and its packets reach the consumer's trace.
*/
#include "system_testutil.h"

static trak_data_source *gadget, *widget;
static int widget_started;

static void write_mark(trak_ds_ctx *ctx, void *user) {
  (void)user;
  trak_pb_put_varint(trak_ds_new_packet(ctx), TRAK_PB_TracePacket_timestamp, MARK_TS);
}

static void on_start(void *user, uint32_t instance, void *state) {
  (void)user, (void)instance, (void)state;
  widget_started++;
}

/* A producer child with "test.gadget" from the start: once a session records it, registers
** "test.widget" (which that session also names), traces one mark with it and reports on
** `ready`. Exit codes: 4 a registration failed, 5 the widget did not join. */
static pid_t spawn_late_widget_producer(int ready) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  alarm(30);
  trak_data_source_desc g = {.name = "test.gadget"};
  if (trak_data_source_register(&g, &gadget, NULL) != 0) _exit(4);
  trak_system_connect(sock);
  wait_sessions(1);
  trak_data_source_desc w = {.name = "test.widget", .start = on_start};
  if (trak_data_source_register(&w, &widget, NULL) != 0) _exit(4);
  if (widget_started != 1 || !TRAK_DATA_SOURCE_ENABLED(widget)) _exit(5);
  TRAK_DATA_SOURCE_TRACE(widget, write_mark, NULL);
  if (write(ready, "r", 1) != 1) _exit(3);
  producer_exit();
}

static void test_producer_registers_during_session(void **state) {
  (void)state;
  start_daemon(1024);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t producer = spawn_late_widget_producer(ready[1]);
  pid_t rec = spawn_recorder("buffers { size_kb: 1024 }\n"
                             "data_sources { config { name: \"test.gadget\" } }\n"
                             "data_sources { config { name: \"test.widget\" } }\n",
                             0, -1);
  wait_ready(ready[0], 1);
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, 20000), 0);
  assert_int_equal(wait_child(producer, 20000), 0);
  tally t;
  read_trace(0, &t);
  assert_int_equal(t.marked, 1); /* the widget's packet, traced after it joined */
  assert_true(index_of(&t, producer) >= 0);
  end_test(ready);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_producer_registers_during_session),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
