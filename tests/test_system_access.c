/*
** Who records whom in the system backend: a session takes only producers that advertised a
** data source it names (also one registered after connecting), and only producers of its
** consumer's uid unless the consumer is root (a --shared daemon lets other users in; that
** part needs root to switch uids and is skipped otherwise).
*/
#include <sys/stat.h>

#include "system_testutil.h"

TRAK_CATEGORY_DEFINE(cat_net, "net", "instants");

#define NOBODY 65534

static trak_data_source *gadget;

static void write_mark(trak_ds_ctx *ctx, void *user) {
  (void)user;
  trak_pb_put_varint(trak_ds_new_packet(ctx), TRAK_PB_TracePacket_timestamp, MARK_TS);
}

static void on_flush(void *user, uint32_t instance, void *state) {
  (void)user, (void)instance, (void)state;
  TRAK_DATA_SOURCE_TRACE(gadget, write_mark, NULL);
}

static void register_gadget(void) {
  trak_data_source_desc d = {.name = "test.gadget", .flush = on_flush};
  if (trak_data_source_register(&d, &gadget, NULL) != 0) _exit(4);
}

enum { GADGET_FIRST, GADGET_LATER, NO_GADGET };

/* Waits until the daemon runs a session holding `producers` producers: a fact to wait for, not
** a time, so a loaded machine only makes the wait longer. (The parent asks: a query from a
** producer would end its producer connection.) */
static void wait_daemon_session(uint32_t producers) {
  for (long start = now_ms(); now_ms() - start < PATIENCE_MS; sleep_ms(10)) {
    trak_service_state *st;
    if (trak_system_query(sock, &st, NULL) != 0) continue;
    int there = st->n_sessions >= 1 && st->sessions[0].producers == producers;
    trak_service_state_free(st);
    if (there) return;
  }
  fail_msg("no session with %u producers", producers);
}

/* A producer child: registers "test.gadget" before connecting, after connecting (when told
** on `go`, once the session runs), or never; reports on `ready` once connected and again once
** recording (without the gadget: when told on `go`, once both gadget producers record, and
** not recording; it then stays until told again), then stays until its sessions end. */
static pid_t spawn_gadget_producer(int kind, int ready, int go) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  alarm(CHILD_ALARM_S);
  if (kind == GADGET_FIRST) register_gadget();
  trak_system_connect(sock);
  wait_connected(1);
  if (write(ready, "c", 1) != 1) _exit(3);
  char c;
  if (kind != GADGET_FIRST && read(go, &c, 1) != 1) _exit(3);
  if (kind == GADGET_LATER) register_gadget();
  if (kind == NO_GADGET) {
    if (trak_system_active_sessions() != 0) _exit(5); /* it must not have been asked */
  } else {
    wait_sessions(1);
  }
  if (write(ready, "r", 1) != 1) _exit(3);
  /* Without the gadget it stays connected until the parent has seen it in the service state. */
  if (kind == NO_GADGET && read(go, &c, 1) != 1) _exit(3);
  producer_exit();
}

static const trak_producer_info *producer(const trak_service_state *st, pid_t pid) {
  for (size_t i = 0; i < st->n_producers; i++)
    if (st->producers[i].pid == pid) return &st->producers[i];
  fail_msg("producer %d is not in the service state", (int)pid);
  return NULL;
}

/* What trak_system_query (`trak status`) reports while the gadget session records: each
** producer's advertised data sources (a later registration included) and its sessions. */
static void check_service_state(pid_t first, pid_t later, pid_t none) {
  trak_service_state *st;
  trak_error err = {0};
  assert_int_equal(trak_system_query(sock, &st, &err), 0);
  assert_int_equal(st->n_producers, 3);
  assert_int_equal(st->n_sessions, 1);
  assert_int_equal(st->sessions[0].producers, 2);
  assert_false(st->truncated);
  const trak_producer_info *p = producer(st, first);
  assert_string_equal(p->data_sources[0], "track_event");
  assert_string_equal(p->data_sources[1], "test.gadget");
  assert_null(p->data_sources[2]);
  assert_int_equal(p->sessions, 1);
  assert_string_equal(producer(st, later)->data_sources[1], "test.gadget");
  assert_int_equal(producer(st, later)->sessions, 1);
  assert_null(producer(st, none)->data_sources[1]);
  assert_int_equal(producer(st, none)->sessions, 0);
  assert_int_equal(producer(st, none)->uid, (int32_t)getuid());
  trak_service_state_free(st);
}

/* A session naming only "test.gadget" records the two producers that have it (one registered
** it after connecting) and not the one that has only track events. */
static void test_sessions_take_producers_with_their_data_sources(void **state) {
  (void)state;
  start_daemon(1024);
  int ready[2], go_later[2], go_none[2];
  assert_int_equal(pipe(ready), 0);
  assert_int_equal(pipe(go_later), 0);
  assert_int_equal(pipe(go_none), 0);
  pid_t first = spawn_gadget_producer(GADGET_FIRST, ready[1], -1);
  pid_t later = spawn_gadget_producer(GADGET_LATER, ready[1], go_later[0]);
  pid_t none = spawn_gadget_producer(NO_GADGET, ready[1], go_none[0]);
  wait_ready(ready[0], 3);
  pid_t rec = spawn_recorder("buffers { size_kb: 1024 }\n"
                             "data_sources { config { name: \"test.gadget\" } }\n",
                             0, -1);
  wait_daemon_session(1); /* running, with the first producer only: now the later one registers */
  assert_int_equal(write(go_later[1], "g", 1), 1);
  wait_daemon_session(2); /* it joined: the one without the gadget must still be left out */
  assert_int_equal(write(go_none[1], "g", 1), 1);
  wait_ready(ready[0], 3);
  check_service_state(first, later, none);
  assert_int_equal(write(go_none[1], "g", 1), 1);
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, PATIENCE_MS), 0);
  assert_int_equal(wait_child(first, PATIENCE_MS), 0);
  assert_int_equal(wait_child(later, PATIENCE_MS), 0);
  assert_int_equal(wait_child(none, PATIENCE_MS), 0);
  tally t;
  read_trace(0, &t);
  assert_int_equal(t.marked, 2); /* one flush mark from each gadget producer */
  assert_true(index_of(&t, first) >= 0);
  assert_true(index_of(&t, later) >= 0);
  assert_int_equal(index_of(&t, none), -1);
  for (int i = 0; i < 2; i++)
    close(go_later[i]), close(go_none[i]);
  end_test(ready);
}

/* A producer child running as `uid` that emits 50 instants into each of `sessions` sessions. */
static pid_t spawn_user_producer(uid_t uid, int sessions, int ready) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  alarm(CHILD_ALARM_S);
  if (setuid(uid) != 0) _exit(6);
  trak_system_connect(sock);
  wait_sessions(sessions);
  for (int i = 0; i < 50; i++)
    TRAK_EVENT_INSTANT(cat_net, "ping");
  if (write(ready, "x", 1) != 1) _exit(3);
  producer_exit();
}

/* The instants of `pid` in `t`; fails the test when it has no packet there. */
static long instants_of(const tally *t, pid_t pid) {
  int k = must_index(t, pid);
  return t->instants[k];
}

/* On a --shared daemon, nobody's recorder gets nobody's producer only; root's gets both. */
static void test_consumers_record_their_own_uid(void **state) {
  (void)state;
  if (geteuid() != 0) skip(); /* switching uids needs root */
  start_daemon_with(1024, 1);
  struct stat st;
  assert_int_equal(stat(sock, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0666);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t mine = spawn_user_producer(NOBODY, 2, ready[1]);
  pid_t roots = spawn_user_producer(0, 1, ready[1]);
  /* Recorders may start before the producers connect: a session takes producers that come
  ** later too. */
  pid_t rec_nobody = spawn_recorder_as(ALL, 0, -1, NOBODY);
  pid_t rec_root = spawn_recorder_as(ALL, 1, -1, 0);
  wait_ready(ready[0], 2);
  kill(rec_nobody, SIGUSR1);
  kill(rec_root, SIGUSR1);
  assert_int_equal(wait_child(rec_nobody, PATIENCE_MS), 0);
  assert_int_equal(wait_child(rec_root, PATIENCE_MS), 0);
  assert_int_equal(wait_child(mine, PATIENCE_MS), 0);
  assert_int_equal(wait_child(roots, PATIENCE_MS), 0);
  tally t;
  read_trace(0, &t);
  assert_int_equal(instants_of(&t, mine), 50);
  assert_int_equal(index_of(&t, roots), -1);
  read_trace(1, &t);
  assert_int_equal(instants_of(&t, mine), 50);
  assert_int_equal(instants_of(&t, roots), 50);
  end_test(ready);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sessions_take_producers_with_their_data_sources),
      cmocka_unit_test(test_consumers_record_their_own_uid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
