/*
** Interceptors and custom data sources under concurrency (also run under ThreadSanitizer):
** several threads write track events and data source packets while intercepted and plain
** sessions start and stop around them. Every packet an interceptor receives must decode with
** its own sequence's dictionary; the per-instance counter, kept under the library's lock,
** must equal the number of packets delivered; every thread state is freed.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_mt, "mt", "concurrency tests");

enum { THREADS = 4, EVENTS = 3000 };

static atomic_int delivered, instance_total, tls_live, tls_made, bad_names, running;

typedef struct inst {
  int packets; /* under trak_interceptor_lock */
} inst;

static int c_setup(void *user, const uint8_t *config, size_t len, void **state, trak_error *err) {
  *state = calloc(1, sizeof(inst));
  return 0;
}
static void c_stop(void *user, void *state) {
  atomic_fetch_add(&instance_total, ((inst *)state)->packets);
  free(state);
}
static void *c_tls_new(void *user) {
  atomic_fetch_add(&tls_live, 1);
  atomic_fetch_add(&tls_made, 1);
  return trak_interning_new();
}
static void c_tls_free(void *user, void *state) {
  atomic_fetch_sub(&tls_live, 1);
  trak_interning_free(state);
}

/* Checks that every interned event name the packet refers to is known. */
static void c_packet(const trak_intercepted_packet *p) {
  trak_interning *in = p->thread_state;
  trak_interning_update(in, p->data, p->len, p->sequence_flags);
  trak_pb_decoder d, e;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, p->data, p->len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_TracePacket_track_event) continue;
    trak_pb_decoder_init_nested(&e, &d, &f);
    while (trak_pb_decoder_next(&e, &g) == 1) {
      size_t n;
      const char *s;
      if (g.number != TRAK_PB_TrackEvent_name_iid) continue;
      s = trak_interning_get(in, TRAK_PB_InternedData_event_names, g.value, &n);
      if (!s || n != 4 || memcmp(s, "work", 4) != 0) atomic_fetch_add(&bad_names, 1);
    }
  }
  inst *st = trak_interceptor_lock(p);
  st->packets++;
  trak_interceptor_unlock(p);
  atomic_fetch_add(&delivered, 1);
}

static trak_data_source *ds;
static void ds_write(trak_ds_ctx *ctx, void *user) {
  trak_pb_buf *b = trak_ds_new_packet(ctx);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp, trak_clock_now());
}

static void *worker(void *arg) {
  while (!atomic_load(&running)) {
  }
  for (int i = 0; i < EVENTS; i++) {
    TRAK_EVENT_BEGIN(cat_mt, "work", TRAK_ARG("i", i));
    TRAK_DATA_SOURCE_TRACE(ds, ds_write, NULL);
    TRAK_EVENT_END(cat_mt);
  }
  return NULL;
}

static trak_session *start_text(const char *text) {
  trak_session *s;
  trak_error err;
  if (trak_session_new_from_text(text, &s, &err) != 0) fail_msg("%s", err.message);
  if (trak_session_start(s, &err) != 0) fail_msg("%s", err.message);
  return s;
}

static void test_threads_and_sessions(void **state) {
  trak_interceptor_desc d = {"mt", NULL, c_setup, NULL, c_stop, c_tls_new, c_tls_free, c_packet};
  assert_int_equal(trak_interceptor_register(&d, NULL), 0);
  trak_data_source_desc dd;
  memset(&dd, 0, sizeof dd);
  dd.name = "mt.ds";
  assert_int_equal(trak_data_source_register(&dd, &ds, NULL), 0);
  const char *icpt_cfg =
      "buffers { size_kb: 256 } incremental_state_config { clear_period_ms: 2 }"
      " data_sources { config { name: \"track_event\" interceptor_config { name: \"mt\" } } }"
      " data_sources { config { name: \"mt.ds\" interceptor_config { name: \"mt\" } } }";
  const char *plain_cfg =
      "buffers { size_kb: 256 } data_sources { config { name: \"track_event\" } }"
      " data_sources { config { name: \"mt.ds\" } }";
  trak_session *always = start_text(icpt_cfg);
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++)
    pthread_create(&th[i], NULL, worker, NULL);
  atomic_store(&running, 1);
  for (int round = 0; round < 20; round++) { /* sessions come and go while threads write */
    trak_session *a = start_text(icpt_cfg);
    trak_session *b = start_text(plain_cfg);
    trak_session_free(a);
    trak_session_free(b);
  }
  for (int i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
  trak_session_free(always);
  assert_int_equal(atomic_load(&bad_names), 0);
  assert_true(atomic_load(&delivered) >= THREADS * EVENTS * 3); /* 2 events + 1 packet each */
  assert_int_equal(atomic_load(&instance_total), atomic_load(&delivered));
  assert_int_equal(atomic_load(&tls_live), 0); /* the workers exited: their states are freed */
  assert_true(atomic_load(&tls_made) >= THREADS * 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_threads_and_sessions)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
