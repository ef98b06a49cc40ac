/*
** Data sources registered while sessions start, flush and stop on other threads (also run under
** ThreadSanitizer). Each session's config names every data source of the test, each entry
** carrying the session's id as legacy_config, so the callbacks know whose instance they serve.
** Checked: every instance set up in a session is started before any trace or flush reaches it
** and stopped exactly once by the time trak_session_stop returns; sessions started after the
** last registration set up every data source; every mask is clear at the end.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdk/internal.h"
#include "trak/trak.h"

enum {
  N_DS = 16, /* data sources registered while sessions run */
  SESSION_THREADS = 2,
  TRACE_THREADS = 2,
  MAX_ROUNDS = 4000, /* sessions per session thread, at most */
  ROUNDS_PER_DS = 4, /* sessions cycled between two registrations */
};

typedef struct instance_state {
  int session;        /* the id its config entry carried */
  atomic_int started; /* start callbacks seen */
  atomic_int stopped; /* stop callbacks seen (the state is freed then) */
} instance_state;

static atomic_int setups[SESSION_THREADS * MAX_ROUNDS], starts[SESSION_THREADS * MAX_ROUNDS],
    stops[SESSION_THREADS * MAX_ROUNDS];
static atomic_int bad, rounds_done, registered, tracing, traced, joined;
static __thread int on_registerer; /* setups run by trak_data_source_register: joins */
static trak_data_source *handles[N_DS];

static int ds_setup(void *user, uint32_t inst, const uint8_t *config, size_t len, void **state) {
  instance_state *st = calloc(1, sizeof *st);
  if (!st) return -1;
  st->session = -1;
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, config, len);
  while (trak_pb_decoder_next(&d, &f) == 1)
    if (f.number == TRAK_PB_DataSourceConfig_legacy_config) {
      char id[16];
      snprintf(id, sizeof id, "%.*s", (int)f.len, (const char *)f.data);
      st->session = atoi(id);
    }
  if (st->session < 0 || st->session >= SESSION_THREADS * MAX_ROUNDS) {
    atomic_fetch_add(&bad, 1);
    free(st);
    return -1;
  }
  atomic_fetch_add(&setups[st->session], 1);
  if (on_registerer) atomic_fetch_add(&joined, 1);
  *state = st;
  return 0;
}
static void ds_start(void *user, uint32_t inst, void *state) {
  instance_state *st = state;
  if (atomic_fetch_add(&st->started, 1) != 0) atomic_fetch_add(&bad, 1);
  atomic_fetch_add(&starts[st->session], 1);
}
static void ds_flush(void *user, uint32_t inst, void *state) {
  instance_state *st = state;
  if (atomic_load(&st->started) != 1 || atomic_load(&st->stopped)) atomic_fetch_add(&bad, 1);
}
static void ds_stop(void *user, uint32_t inst, void *state) {
  instance_state *st = state;
  if (atomic_load(&st->started) != 1 || atomic_fetch_add(&st->stopped, 1) != 0)
    atomic_fetch_add(&bad, 1);
  atomic_fetch_add(&stops[st->session], 1);
  free(st);
}

/* Writes one small packet; the instance must be started and not stopped. */
static void trace_one(trak_ds_ctx *ctx, void *user) {
  instance_state *st = trak_ds_lock_instance(ctx);
  if (!st || atomic_load(&st->started) != 1 || atomic_load(&st->stopped)) atomic_fetch_add(&bad, 1);
  trak_ds_unlock_instance(ctx);
  trak_pb_buf *p = trak_ds_new_packet(ctx);
  trak_pb_put_varint(p, TRAK_PB_TracePacket_timestamp, trak_clock_now());
  atomic_fetch_add(&traced, 1);
}

static void *tracer(void *arg) {
  while (atomic_load(&tracing)) {
    int n = atomic_load(&registered);
    for (int i = 0; i < n; i++)
      TRAK_DATA_SOURCE_TRACE(handles[i], trace_one, NULL);
    sched_yield();
  }
  return NULL;
}

static void *registerer(void *arg) {
  on_registerer = 1;
  for (int i = 0; i < N_DS; i++) {
    while (atomic_load(&rounds_done) < i * ROUNDS_PER_DS)
      sched_yield();
    char name[32];
    snprintf(name, sizeof name, "mt.join.%d", i);
    trak_data_source_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.setup = ds_setup;
    d.start = ds_start;
    d.stop = ds_stop;
    d.flush = ds_flush;
    trak_error err;
    if (trak_data_source_register(&d, &handles[i], &err) != 0) {
      fprintf(stderr, "register: %s\n", err.message);
      atomic_fetch_add(&bad, 1);
      return NULL;
    }
    atomic_store(&registered, i + 1); /* publishes handles[i] to the tracers */
  }
  return NULL;
}

/* Starts session `id` (naming every data source, tolerating the unregistered), flushes and
** stops it. Returns how many instances it set up; checks each was started and stopped once. */
static int one_session(int id) {
  char text[N_DS * 128];
  size_t len = 0;
  for (int i = 0; i < N_DS; i++)
    len += (size_t)snprintf(
        text + len, sizeof text - len,
        "data_sources { config { name: \"mt.join.%d\" legacy_config: \"%d\" } }\n", i, id);
  len += (size_t)snprintf(text + len, sizeof text - len, "buffers { size_kb: 64 }");
  trak_session *s;
  trak_error err;
  if (trak_session_new_from_text(text, &s, &err) != 0) fail_msg("%s", err.message);
  s->sources_optional = 1;
  if (trak_session_start(s, &err) != 0) fail_msg("%s", err.message);
  sched_yield();
  trak_session_flush(s, NULL);
  sched_yield();
  trak_session_stop(s, NULL);
  int n = atomic_load(&setups[id]);
  if (atomic_load(&starts[id]) != n || atomic_load(&stops[id]) != n) atomic_fetch_add(&bad, 1);
  trak_session_free(s);
  return n;
}

static void *session_loop(void *arg) {
  int t = (int)(intptr_t)arg, round = 0;
  while (atomic_load(&registered) < N_DS && round < MAX_ROUNDS - 1) {
    one_session(t * MAX_ROUNDS + round++);
    atomic_fetch_add(&rounds_done, 1);
  }
  /* Every data source is registered now: a new session sets up all of them. */
  if (one_session(t * MAX_ROUNDS + round) != N_DS) atomic_fetch_add(&bad, 1);
  return NULL;
}

static void test_register_while_sessions_cycle(void **state) {
  pthread_t st[SESSION_THREADS], tt[TRACE_THREADS], rt;
  atomic_store(&tracing, 1);
  for (int i = 0; i < TRACE_THREADS; i++)
    pthread_create(&tt[i], NULL, tracer, NULL);
  for (int i = 0; i < SESSION_THREADS; i++)
    pthread_create(&st[i], NULL, session_loop, (void *)(intptr_t)i);
  pthread_create(&rt, NULL, registerer, NULL);
  pthread_join(rt, NULL);
  for (int i = 0; i < SESSION_THREADS; i++)
    pthread_join(st[i], NULL);
  atomic_store(&tracing, 0);
  for (int i = 0; i < TRACE_THREADS; i++)
    pthread_join(tt[i], NULL);
  assert_int_equal(atomic_load(&registered), N_DS);
  assert_int_equal(atomic_load(&bad), 0);
  long total = 0;
  for (int i = 0; i < SESSION_THREADS * MAX_ROUNDS; i++) {
    assert_int_equal(atomic_load(&starts[i]), atomic_load(&setups[i]));
    assert_int_equal(atomic_load(&stops[i]), atomic_load(&setups[i]));
    total += atomic_load(&setups[i]);
  }
  assert_true(total >= SESSION_THREADS * N_DS); /* at least the final sessions' instances */
  for (int i = 0; i < N_DS; i++)
    assert_false(TRAK_DATA_SOURCE_ENABLED(handles[i]));
  printf("%d sessions, %ld instances (%d joined running sessions), %d packets traced\n",
         atomic_load(&rounds_done) + 2, total, atomic_load(&joined), atomic_load(&traced));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_register_while_sessions_cycle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
