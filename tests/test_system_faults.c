/*
** The system backend when things go wrong or take long: a daemon killed mid-session and
** restarted (producers reconnect, and what they emitted meanwhile is counted as lost), and a
** streaming session whose producers emit too little to fill a chunk (periodic flushes move
** partly written chunks, exactly once), and a daemon stopped while it records (sessions end
** with every producer's data). Forked processes as in test_system_daemon.c.
*/
#include "system_testutil.h"

TRAK_CATEGORY_DEFINE(cat_net, "net", "instants");

static void pings(int n) {
  for (int i = 0; i < n; i++)
    TRAK_EVENT_INSTANT(cat_net, "ping");
}

static void tell(int fd) {
  if (write(fd, "x", 1) != 1) _exit(3);
}

static void await(int fd) {
  char c;
  if (read(fd, &c, 1) != 1) _exit(3);
}

/* The daemon dies (SIGKILL) during a session; the producer goes on emitting, reconnects to
** the next daemon by itself, and the next session's loss count holds what it emitted while
** no daemon was there. */
static void test_restart_counts_lost_events(void **state) {
  (void)state;
  enum { BEFORE = 100, AWAY = 500, AFTER = 100 };
  start_daemon(1024);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t prod = fork_producer(1);
  if (prod == 0) {
    pings(BEFORE);
    tell(ready[1]);
    wait_connected(0);
    pings(AWAY); /* into the orphaned session: never copied, counted */
    tell(ready[1]);
    wait_connected(1);
    wait_sessions(1);
    pings(AFTER);
    tell(ready[1]);
    producer_exit();
  }
  sleep_ms(200);
  pid_t rec = spawn_recorder(ALL, 0, -1);
  wait_ready(ready[0], 1);
  assert_int_equal(kill(daemon_pid, SIGKILL), 0);
  assert_int_equal(wait_child(daemon_pid, 5000), -1);
  assert_int_equal(wait_child(rec, 10000), 1); /* its daemon went away: an error */
  wait_ready(ready[0], 1);
  fork_daemon(1024, 0); /* removes the stale socket, listens on the same path */
  sleep_ms(300);        /* the producer retries every 100 ms */
  rec = spawn_recorder(ALL, 1, -1);
  wait_ready(ready[0], 1);
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, 20000), 5); /* 5: it reports losses */
  assert_int_equal(wait_child(prod, 20000), 0);
  tally t;
  read_trace(1, &t);
  int k = must_index(&t, prod);
  assert_int_equal(t.instants[k], AFTER);
  /* Everything emitted in between; at most also what the dead daemon never copied before. */
  long lost = read_lost(1);
  assert_int_equal(t.stats_packet_loss, lost); /* in the trace too */
  assert_true(lost >= AWAY);
  assert_true(lost <= BEFORE + AWAY + 10);
  end_test(ready);
}

static const char STREAMING[] = "write_into_file: true\n"
                                "file_write_period_ms: 200\n"
                                "buffers { size_kb: 1024 fill_policy: DISCARD }\n"
                                "data_sources { config { name: \"track_event\" } }\n";

/* Waits up to 5 s for the producer's instants in trace0.pb to reach `want`; returns them. */
static long instants_in_file(pid_t prod, long want) {
  tally t;
  long have = -1;
  for (int i = 0; i < 50 && have != want; i++) {
    sleep_ms(100);
    read_trace(0, &t);
    int k = index_of(&t, prod);
    have = k >= 0 ? t.instants[k] : 0;
  }
  return have;
}

/* A streaming session with a producer that never fills a chunk: periodic flushes copy what
** the chunk holds so far, the file shows it while the session runs, and the rest of the same
** chunk later arrives without repeating a packet. */
static void test_periodic_flush_streams_partial_chunks(void **state) {
  (void)state;
  enum { STEP = 20 };
  start_daemon(1024);
  int ready[2], go[2];
  assert_int_equal(pipe(ready), 0);
  assert_int_equal(pipe(go), 0);
  pid_t prod = fork_producer(1);
  if (prod == 0) {
    for (int round = 0; round < 3; round++) {
      pings(STEP);
      tell(ready[1]);
      await(go[0]);
    }
    producer_exit();
  }
  sleep_ms(200);
  pid_t rec = spawn_recorder(STREAMING, 0, -1);
  for (int round = 1; round <= 3; round++) {
    wait_ready(ready[0], 1);
    assert_int_equal(instants_in_file(prod, round * STEP), round * STEP);
    assert_int_equal(write(go[1], "g", 1), 1);
  }
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, 20000), 0);
  assert_int_equal(wait_child(prod, 20000), 0);
  tally t;
  read_trace(0, &t);
  int k = must_index(&t, prod);
  assert_int_equal(t.instants[k], 3 * STEP);
  assert_int_equal(t.untrusted, 0);
  for (int i = 0; i < 2; i++) {
    close(ready[i]);
    close(go[i]);
  }
  stop_daemon();
}

/* `trak daemon` stopped (SIGTERM) while a session records: the session ends as if its
** recorder stopped it, with every event the producer emitted, and the recorder succeeds. */
static void test_daemon_stop_finishes_sessions(void **state) {
  (void)state;
  enum { EVENTS = 5000 };
  start_daemon(1024);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t prod = fork_producer(1);
  if (prod == 0) {
    pings(EVENTS); /* most of them still in the producer's chunks */
    tell(ready[1]);
    producer_exit();
  }
  sleep_ms(200);
  pid_t rec = spawn_recorder(ALL, 0, -1);
  wait_ready(ready[0], 1);
  assert_int_equal(kill(daemon_pid, SIGTERM), 0);
  assert_int_equal(wait_child(daemon_pid, 10000), 0);
  assert_int_equal(wait_child(rec, 10000), 0);
  assert_int_equal(wait_child(prod, 10000), 0);
  tally t;
  read_trace(0, &t);
  int k = must_index(&t, prod);
  assert_int_equal(t.instants[k], EVENTS);
  close(ready[0]);
  close(ready[1]);
  fork_daemon(1024, 0); /* for stop_daemon's cleanup */
  stop_daemon();
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_restart_counts_lost_events),
      cmocka_unit_test(test_periodic_flush_streams_partial_chunks),
      cmocka_unit_test(test_daemon_stop_finishes_sessions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
