/*
** The system backend across processes: a daemon (forked), producers (forked, tracing through
** shared memory), consumers (forked trak_record_run). Every child has an alarm and the parent
** kills any child that overstays, so no test can hang. Sockets live in a fresh temp dir.
**
** Covered: N producers into one session with every event accounted for; a producer killed
** with SIGKILL mid-trace; hostile producers (garbage chunk header, oversized message, chunk
** index out of range, forged trusted fields) next to good ones; two concurrent sessions with
** different category filters; a producer's startup tracing adopted by the daemon's session.
*/
#include "system_testutil.h"

TRAK_CATEGORY_DEFINE(cat_app, "app", "slices");
TRAK_CATEGORY_DEFINE(cat_net, "net", "instants");

#define EVENTS 3000

/* A producer child: waits for `sessions` sessions, emits `events` slices ("app") and
** instants ("net") (forever when `events` < 0), reports on `ready`, waits for the end. */
static pid_t spawn_producer(int sessions, long events, int ready) {
  pid_t pid = fork_producer(sessions);
  if (pid != 0) return pid;
  for (long i = 0; events < 0 || i < events; i++) {
    { TRAK_EVENT(cat_app, "work"); }
    TRAK_EVENT_INSTANT(cat_net, "ping");
    if (i == (events < 0 ? 1000 : events - 1)) {
      if (write(ready, "x", 1) != 1) _exit(3);
    }
    if (events < 0) usleep(100);
  }
  producer_exit();
}

/* Each of the `n` producers has all its EVENTS slices and EVENTS instants in `t`. */
static void assert_all_events(const tally *t, const pid_t *pids, int n) {
  for (int i = 0; i < n; i++) {
    int k = must_index(t, pids[i]);
    assert_int_equal(t->slices[k], EVENTS);
    assert_int_equal(t->instants[k], EVENTS);
  }
}

/* ---- tests ------------------------------------------------------------------------------- */

static void test_producers_into_one_session(void **state) {
  (void)state;
  enum { N = 4 };
  start_daemon(4096);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t prod[N];
  for (int i = 0; i < N; i++)
    prod[i] = spawn_producer(1, EVENTS, ready[1]);
  sleep_ms(200);
  pid_t rec = spawn_recorder(ALL, 0, -1);
  wait_ready(ready[0], N);
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, 20000), 0);
  for (int i = 0; i < N; i++)
    assert_int_equal(wait_child(prod[i], 20000), 0);
  tally t;
  read_trace(0, &t);
  assert_int_equal(t.untrusted, 0);
  assert_int_equal(t.trace_stats, 1);
  assert_int_equal(t.stats_packet_loss, 0);
  assert_all_events(&t, prod, N);
  end_test(ready);
}

static void test_sigkill_mid_trace(void **state) {
  (void)state;
  start_daemon(4096);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t victim = spawn_producer(1, -1, ready[1]);
  pid_t good[2] = {spawn_producer(1, EVENTS, ready[1]), spawn_producer(1, EVENTS, ready[1])};
  sleep_ms(200);
  pid_t rec = spawn_recorder(ALL, 0, -1);
  wait_ready(ready[0], 3);
  kill(victim, SIGKILL);
  assert_int_equal(wait_child(victim, 5000), -1);
  sleep_ms(100);
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, 20000), 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(wait_child(good[i], 20000), 0);
  tally t;
  read_trace(0, &t);
  assert_int_equal(t.untrusted, 0);
  assert_all_events(&t, good, 2);
  /* The victim's events up to its death are there (committed or salvaged). */
  int k = must_index(&t, victim);
  assert_true(t.slices[k] >= 1000);
  /* The daemon carries on: a second session records. */
  pid_t again = spawn_producer(1, 10, ready[1]);
  sleep_ms(200);
  rec = spawn_recorder(ALL, 1, -1);
  wait_ready(ready[0], 1);
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, 20000), 0);
  assert_int_equal(wait_child(again, 20000), 0);
  read_trace(1, &t);
  k = index_of(&t, again);
  assert_true(k >= 0);
  assert_int_equal(t.slices[k], 10);
  end_test(ready);
}

enum {
  H_GARBAGE_HEADER,
  H_OVERSIZED,
  H_BAD_INDEX,
  H_BAD_FRAMING,
  H_NO_READ,
  H_FORGED_TRUST,
  H_KINDS
};

/* Writes one packet (with forged trusted fields) into chunk 0 as a valid chunk. */
static void forge_chunk(uint8_t *mem) {
  trak__chunk *c = (trak__chunk *)mem;
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_nested n = trak_pb_begin_nested(&b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(&b, TRAK_PB_TracePacket_trusted_pid, FORGED_PID);
  trak_pb_put_varint(&b, TRAK_PB_TracePacket_trusted_uid, FORGED_UID);
  trak_pb_put_varint(&b, TRAK_PB_TracePacket_trusted_packet_sequence_id, 1);
  trak_pb_put_varint(&b, TRAK_PB_TracePacket_timestamp, 5);
  trak_pb_end_nested(&b, n);
  memcpy(mem + TRAK__CHUNK_HEADER, b.start, trak_pb_buf_len(&b));
  c->writer_id = 1;
  c->chunk_index = 0;
  atomic_store(&c->fill, trak_pb_buf_len(&b) | (1ull << 32));
  trak_pb_buf_free(&b);
}

/* A hostile producer child speaking the protocol by hand. Exits 0 when the daemon reacted
** as it must: disconnected it (misbehaviour) or kept it (forged fields, which get replaced). */
static pid_t spawn_hostile(int kind, int ready) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  alarm(30);
  int fd = trak__ipc_connect(sock);
  if (fd < 0) _exit(10);
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_nested hello = trak__ipc_begin(&b, TRAK_PB_IpcMessage_hello);
  trak_pb_put_string(&b, TRAK_PB_IpcHello_data_sources, "track_event");
  trak__ipc_end(&b, hello);
  if (trak__ipc_send(fd, &b, -1, 0)) _exit(11);
  static uint8_t rx[TRAK__IPC_MAX];
  static trak__ipc_msg m;
  int memfd = -1;
  for (int t = 0; t < 1000 && memfd < 0; t++) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 10) != 1) continue;
    long n = trak__ipc_recv(fd, rx, &memfd);
    if (n <= 0 || trak__ipc_decode(rx, (size_t)n, &m)) _exit(12);
    if (m.type == TRAK_PB_IpcMessage_welcome) continue;
    if (m.type != TRAK_PB_IpcMessage_start_session) _exit(12);
  }
  if (memfd < 0) _exit(13);
  uint8_t *mem = mmap(NULL, m.buffer_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
  if (mem == MAP_FAILED) _exit(14);
  uint32_t sid = m.session_id, chunk = 0;
  trak__chunk *c = (trak__chunk *)mem;
  switch (kind) {
  case H_GARBAGE_HEADER:
    memset(mem, 0xA5, 4096);
    break;
  case H_BAD_INDEX:
    chunk = m.buffer_size;
    break;
  case H_BAD_FRAMING:
    forge_chunk(mem);
    atomic_store(&c->fill, atomic_load(&c->fill) + (3ull << 32)); /* claims 4 packets */
    break;
  case H_FORGED_TRUST:
    forge_chunk(mem);
    break;
  default:
    break;
  }
  if (kind == H_NO_READ) { /* commits an empty chunk over and over, never reading replies */
    for (int i = 0; i < 1000000; i++) {
      trak__ipc_put_chunks(&b, TRAK_PB_IpcMessage_commit_chunks, sid, &chunk, 1, 0, 0);
      if (trak__ipc_send(fd, &b, -1, 0)) {
        if (write(ready, "h", 1) != 1) _exit(17);
        _exit(errno == EPIPE || errno == ECONNRESET ? 0 : 20);
      }
    }
    _exit(21);
  }
  if (kind == H_OVERSIZED) {
    static uint8_t big[TRAK__IPC_MAX * 2];
    memset(big, 0x0A, sizeof big);
    if (send(fd, big, sizeof big, 0) != (ssize_t)sizeof big) _exit(15);
  } else {
    trak__ipc_put_chunks(&b, TRAK_PB_IpcMessage_commit_chunks, sid, &chunk, 1, 0, 0);
    if (trak__ipc_send(fd, &b, -1, 0)) _exit(16);
  }
  if (write(ready, "h", 1) != 1) _exit(17);
  /* Expect: end of stream (disconnected), or for forged fields a release of chunk 0. */
  for (int t = 0; t < 500; t++) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 10) != 1) continue;
    int got;
    long n = trak__ipc_recv(fd, rx, &got);
    if (n == 0) _exit(kind == H_FORGED_TRUST ? 18 : 0);
    if (n > 0 && kind == H_FORGED_TRUST && !trak__ipc_decode(rx, (size_t)n, &m) &&
        m.type == TRAK_PB_IpcMessage_release_chunks)
      _exit(0);
  }
  _exit(19);
}

static void test_hostile_producers(void **state) {
  (void)state;
  start_daemon(1024);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t good[2] = {spawn_producer(1, EVENTS, ready[1]), spawn_producer(1, EVENTS, ready[1])};
  pid_t bad[H_KINDS];
  for (int k = 0; k < H_KINDS; k++)
    bad[k] = spawn_hostile(k, ready[1]);
  sleep_ms(300);
  pid_t rec = spawn_recorder(ALL, 0, -1);
  wait_ready(ready[0], 2 + H_KINDS);
  for (int k = 0; k < H_KINDS; k++)
    assert_int_equal(wait_child(bad[k], 20000), 0);
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, 20000), 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(wait_child(good[i], 20000), 0);
  tally t;
  read_trace(0, &t);
  assert_int_equal(t.untrusted, 0);
  assert_int_equal(t.forged, 0);
  assert_all_events(&t, good, 2);
  /* The forged packet is there, stamped with its real sender. */
  assert_true(index_of(&t, bad[H_FORGED_TRUST]) >= 0);
  for (int k = 0; k < H_FORGED_TRUST; k++)
    assert_int_equal(index_of(&t, bad[k]), -1);
  end_test(ready);
}

static void test_two_sessions_with_filters(void **state) {
  (void)state;
  enum { N = 2 };
  start_daemon(4096);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t prod[N];
  for (int i = 0; i < N; i++)
    prod[i] = spawn_producer(2, EVENTS, ready[1]);
  sleep_ms(200);
  pid_t rec_app = spawn_recorder(ONLY_APP, 0, -1), rec_net = spawn_recorder(ONLY_NET, 1, -1);
  wait_ready(ready[0], N);
  kill(rec_app, SIGUSR1);
  kill(rec_net, SIGUSR1);
  assert_int_equal(wait_child(rec_app, 20000), 0);
  assert_int_equal(wait_child(rec_net, 20000), 0);
  for (int i = 0; i < N; i++)
    assert_int_equal(wait_child(prod[i], 20000), 0);
  tally app, net;
  read_trace(0, &app);
  read_trace(1, &net);
  for (int i = 0; i < N; i++) {
    int a = index_of(&app, prod[i]), n = index_of(&net, prod[i]);
    assert_true(a >= 0 && n >= 0);
    assert_int_equal(app.slices[a], EVENTS);
    assert_int_equal(app.instants[a], 0);
    assert_int_equal(net.slices[n], 0);
    assert_int_equal(net.instants[n], EVENTS);
  }
  end_test(ready);
}

/* The daemon goes away and comes back on the same socket: a producer reconnects by itself
** and the next session records it. */
static void test_daemon_restart(void **state) {
  (void)state;
  start_daemon(1024);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  /* Two sessions in its life: one before the restart, one after. */
  pid_t prod = fork();
  if (prod == 0) {
    alarm(30);
    trak_system_connect(sock);
    for (int round = 0; round < 2; round++) {
      wait_sessions(1);
      for (int i = 0; i < 100; i++)
        TRAK_EVENT_INSTANT(cat_net, "ping");
      if (write(ready[1], "x", 1) != 1) _exit(3);
      wait_sessions(0);
    }
    trak_system_disconnect();
    _exit(0);
  }
  sleep_ms(200);
  pid_t rec = spawn_recorder(ALL, 0, -1);
  wait_ready(ready[0], 1);
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, 20000), 0);
  /* Restart: same socket path, new daemon. */
  assert_int_equal(kill(daemon_pid, SIGTERM), 0);
  assert_int_equal(wait_child(daemon_pid, 10000), 0);
  fork_daemon(1024, 0);
  sleep_ms(300); /* the producer retries every 100 ms */
  rec = spawn_recorder(ALL, 1, -1);
  wait_ready(ready[0], 1);
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, 20000), 0);
  assert_int_equal(wait_child(prod, 20000), 0);
  tally t;
  for (int n = 0; n < 2; n++) {
    read_trace(n, &t);
    int k = must_index(&t, prod);
    assert_int_equal(t.instants[k], 100);
  }
  end_test(ready);
}

/* A producer far faster than its 64 KiB shared buffer drains: events are lost, and every
** one is either in the trace or in the loss count the recorder gets. */
static void test_losses_accounted(void **state) {
  (void)state;
  enum { FLOOD = 200000 };
  start_daemon(64);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t prod = fork_producer(1);
  if (prod == 0) {
    for (int i = 0; i < FLOOD; i++)
      TRAK_EVENT_INSTANT(cat_net, "ping");
    if (write(ready[1], "x", 1) != 1) _exit(3);
    producer_exit();
  }
  sleep_ms(200);
  pid_t rec = spawn_recorder(ALL, 0, -1);
  wait_ready(ready[0], 1);
  kill(rec, SIGUSR1);
  int rc = wait_child(rec, 20000);
  assert_true(rc == 0 || rc == 5); /* 5: losses reported */
  assert_int_equal(wait_child(prod, 20000), 0);
  tally t;
  read_trace(0, &t);
  int k = must_index(&t, prod);
  long lost = read_lost(0);
  /* The trace says so itself, in its trace_stats packet. */
  assert_int_equal(t.trace_stats, 1);
  assert_int_equal(t.stats_packet_loss, lost);
  /* Lost packets also include the few descriptor and restart packets of the sequence. */
  assert_true(t.instants[k] + lost >= FLOOD);
  assert_true(t.instants[k] + lost <= FLOOD + FLOOD / 20);
  end_test(ready);
}

static trak_data_source *flushed_ds;

static void write_mark(trak_ds_ctx *ctx, void *user) {
  (void)user;
  trak_pb_put_varint(trak_ds_new_packet(ctx), TRAK_PB_TracePacket_timestamp, MARK_TS);
}

static void on_flush(void *user, uint32_t instance, void *state) {
  (void)user, (void)instance, (void)state;
  TRAK_DATA_SOURCE_TRACE(flushed_ds, write_mark, NULL);
}

/* A custom data source's flush callback runs in the producer before the stop (the daemon
** flushes first), and what it writes reaches the trace. */
static void test_flush_before_stop(void **state) {
  (void)state;
  start_daemon(1024);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t prod = fork();
  if (prod == 0) {
    alarm(30);
    trak_data_source_desc d = {.name = "test.flushed", .flush = on_flush};
    if (trak_data_source_register(&d, &flushed_ds, NULL) != 0) _exit(4);
    trak_system_connect(sock);
    wait_sessions(1);
    if (write(ready[1], "x", 1) != 1) _exit(3);
    producer_exit();
  }
  sleep_ms(200);
  pid_t rec = spawn_recorder("buffers { size_kb: 1024 }\n"
                             "data_sources { config { name: \"test.flushed\" } }\n",
                             0, -1);
  wait_ready(ready[0], 1);
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, 20000), 0);
  assert_int_equal(wait_child(prod, 20000), 0);
  tally t;
  read_trace(0, &t);
  assert_int_equal(t.marked, 1);
  assert_true(index_of(&t, prod) >= 0);
  end_test(ready);
}

/* A producer that traced from its start, before it connected: the daemon's session adopts
** what it recorded, every event of it, with the producer's credentials. */
static void test_startup_adopted_by_daemon_session(void **state) {
  (void)state;
  start_daemon(4096);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t prod = fork();
  if (prod == 0) {
    alarm(CHILD_ALARM_S);
    trak_startup_opts opts = {PATIENCE_MS, NULL, NULL};
    if (trak_startup_tracing_begin(NULL, &opts, NULL) != 0) _exit(4);
    for (int i = 0; i < EVENTS; i++) {
      { TRAK_EVENT(cat_app, "work"); }
      TRAK_EVENT_INSTANT(cat_net, "ping");
    }
    trak_system_connect(sock);
    wait_sessions(1);
    trak_startup_stats st;
    trak_startup_tracing_get_stats(&st);
    if (st.outcome != TRAK_STARTUP_ADOPTED || st.packets_dropped) _exit(5);
    if (write(ready[1], "x", 1) != 1) _exit(3);
    producer_exit();
  }
  pid_t rec = spawn_recorder(ALL, 0, -1);
  wait_ready(ready[0], 1);
  kill(rec, SIGUSR1);
  assert_int_equal(wait_child(rec, 20000), 0);
  assert_int_equal(wait_child(prod, 20000), 0);
  tally t;
  read_trace(0, &t);
  assert_int_equal(t.untrusted, 0);
  assert_int_equal(t.stats_packet_loss, 0);
  assert_all_events(&t, &prod, 1);
  end_test(ready);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_producers_into_one_session),
      cmocka_unit_test(test_sigkill_mid_trace),
      cmocka_unit_test(test_hostile_producers),
      cmocka_unit_test(test_two_sessions_with_filters),
      cmocka_unit_test(test_daemon_restart),
      cmocka_unit_test(test_losses_accounted),
      cmocka_unit_test(test_flush_before_stop),
      cmocka_unit_test(test_startup_adopted_by_daemon_session),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
