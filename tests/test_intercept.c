/*
** Interceptors: activation and deactivation by a session's config, packets reaching only the
** interceptor while it is active (another session without it keeps recording), the three kinds
** of state (global, per instance under the library's lock, per writer sequence following the
** writer's life), interning dictionaries across incremental-state clears, an interceptor named
** before it is registered (a clear error, then effective for the next session), and a custom
** data source routed to an interceptor.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trak/trak.h"
#include "sdk_decode.h"

TRAK_CATEGORY_DEFINE(cat_i, "icpt", "interceptor tests");

/* ---- a recording interceptor ------------------------------------------------------------- */

#define MAX_SEEN 256

typedef struct recorder { /* global state */
  pthread_mutex_t lock;
  int setups, starts, stops, tls_new, tls_free, packets, events, cleared;
  char names[MAX_SEEN][32]; /* resolved event names, in order */
  int nnames;
  char config_name[32];
  char last_ds[32];
} recorder;

static recorder rec = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, 0, 0, 0, {{0}}, 0, {0}, {0}};

typedef struct inst_state {
  int packets; /* under trak_interceptor_lock */
} inst_state;

typedef struct tls_state {
  trak_interning *strings;
} tls_state;

static int r_setup(void *user, const uint8_t *config, size_t len, void **state, trak_error *err) {
  recorder *r = user;
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, config, len);
  while (trak_pb_decoder_next(&d, &f) == 1)
    if (f.number == TRAK_PB_InterceptorConfig_name)
      snprintf(r->config_name, sizeof r->config_name, "%.*s", (int)f.len, f.data);
  pthread_mutex_lock(&r->lock);
  r->setups++;
  pthread_mutex_unlock(&r->lock);
  *state = calloc(1, sizeof(inst_state));
  return 0;
}
static void r_start(void *user, void *state) {
  ((recorder *)user)->starts++;
}
static void r_stop(void *user, void *state) {
  ((recorder *)user)->stops++;
  free(state);
}
static void *r_tls_new(void *user) {
  recorder *r = user;
  pthread_mutex_lock(&r->lock);
  r->tls_new++;
  pthread_mutex_unlock(&r->lock);
  tls_state *t = calloc(1, sizeof *t);
  t->strings = trak_interning_new();
  return t;
}
static void r_tls_free(void *user, void *state) {
  recorder *r = user;
  tls_state *t = state;
  pthread_mutex_lock(&r->lock);
  r->tls_free++;
  pthread_mutex_unlock(&r->lock);
  trak_interning_free(t->strings);
  free(t);
}

/* The name of the track event in the packet, resolved through the sequence's dictionary. */
static int event_name(const tls_state *t, const uint8_t *data, size_t len, char *out) {
  trak_pb_decoder d, e;
  trak_pb_field f, g;
  int found = 0;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_TracePacket_track_event) continue;
    found = 1;
    strcpy(out, "-");
    trak_pb_decoder_init_nested(&e, &d, &f);
    while (trak_pb_decoder_next(&e, &g) == 1) {
      size_t n;
      const char *s;
      if (g.number == TRAK_PB_TrackEvent_name_iid &&
          (s = trak_interning_get(t->strings, TRAK_PB_InternedData_event_names, g.value, &n)))
        snprintf(out, 32, "%.*s", (int)n, s);
      else if (g.number == TRAK_PB_TrackEvent_name_iid)
        strcpy(out, "?unknown iid");
    }
  }
  return found;
}

static void r_packet(const trak_intercepted_packet *p) {
  recorder *r = p->user;
  tls_state *t = p->thread_state;
  assert_non_null(t);
  assert_int_equal(trak_interning_update(t->strings, p->data, p->len, p->sequence_flags), 0);
  inst_state *st = trak_interceptor_lock(p); /* NULL for "late", which has no setup */
  if (st) st->packets++;
  trak_interceptor_unlock(p);
  char name[32];
  int is_event = event_name(t, p->data, p->len, name);
  pthread_mutex_lock(&r->lock);
  r->packets++;
  r->cleared += (p->sequence_flags & TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED) != 0;
  snprintf(r->last_ds, sizeof r->last_ds, "%s", p->data_source);
  if (is_event) {
    r->events++;
    if (r->nnames < MAX_SEEN) strcpy(r->names[r->nnames++], name);
  }
  pthread_mutex_unlock(&r->lock);
}

static void reset(void) {
  pthread_mutex_lock(&rec.lock);
  rec.setups = rec.starts = rec.stops = rec.tls_new = rec.tls_free = 0;
  rec.packets = rec.events = rec.cleared = rec.nnames = 0;
  pthread_mutex_unlock(&rec.lock);
}

static int group_setup(void **state) {
  trak_interceptor_desc d = {"recorder", &rec,      r_setup,    r_start,
                             r_stop,     r_tls_new, r_tls_free, r_packet};
  assert_int_equal(trak_interceptor_register(&d, NULL), 0);
  return 0;
}

static trak_session *start_text(const char *text) {
  trak_session *s;
  trak_error err;
  if (trak_session_new_from_text(text, &s, &err) != 0) fail_msg("%s", err.message);
  if (trak_session_start(s, &err) != 0) fail_msg("%s", err.message);
  return s;
}

/* The length of a stopped session's trace without the trace_stats packet that ends it. */
static size_t trace_len(trak_session *s) {
  uint8_t *data;
  size_t len;
  assert_int_equal(trak_session_read(s, &data, &len, NULL), 0);
  assert_true(dec_cut_trace_stats(data, &len));
  free(data);
  return len;
}

static const char *intercepted_cfg =
    "data_sources { config { name: \"track_event\" interceptor_config { name: \"recorder\" } } }";

/* ---- tests ----------------------------------------------------------------------------- */

static void test_activation_by_config(void **state) {
  reset();
  trak_session *plain = start_text("data_sources { config { name: \"track_event\" } }");
  TRAK_EVENT_INSTANT(cat_i, "before");
  assert_int_equal(rec.packets, 0);
  trak_session *icpt = start_text(intercepted_cfg);
  assert_int_equal(rec.setups, 1);
  assert_int_equal(rec.starts, 1);
  assert_string_equal(rec.config_name, "recorder");
  TRAK_EVENT_BEGIN(cat_i, "during");
  TRAK_EVENT_END(cat_i);
  assert_int_equal(rec.events, 2);
  assert_true(rec.packets > rec.events); /* the restart and descriptor packets too */
  assert_string_equal(rec.last_ds, "track_event");
  assert_string_equal(rec.names[0], "during");
  assert_int_equal(rec.cleared, 1);
  assert_int_equal(trak_session_stop(icpt, NULL), 0);
  assert_int_equal(rec.stops, 1);
  assert_int_equal(trace_len(icpt), 0); /* nothing reached the intercepted session's buffer */
  int events = rec.events;
  TRAK_EVENT_INSTANT(cat_i, "after");
  assert_int_equal(rec.events, events); /* deactivated with its session */
  trak_session_stop(plain, NULL);
  assert_true(trace_len(plain) > 0); /* the other session recorded everything */
  trak_session_free(icpt);
  trak_session_free(plain);
}

static void *thread_main(void *arg) {
  trak_thread_set_name("worker");
  TRAK_EVENT_INSTANT(cat_i, "from worker");
  return NULL;
}

/* The per-sequence state is created on a sequence's first packet and freed with its writer:
** when its thread exits. */
static void test_thread_state_lifetime(void **state) {
  reset();
  trak_session *s = start_text(intercepted_cfg);
  pthread_t th;
  pthread_create(&th, NULL, thread_main, NULL);
  pthread_join(th, NULL);
  assert_int_equal(rec.tls_new, 1);
  assert_int_equal(rec.tls_free, 1);
  TRAK_EVENT_INSTANT(cat_i, "main");
  assert_int_equal(rec.tls_new, 2);
  trak_session_free(s);
  assert_int_equal(rec.events, 2);
}

static uint64_t fake_ns;
static uint64_t fake_clock(void) {
  return fake_ns;
}

/* Periodic clears restart the sequence many times; the dictionary, cleared on each
** SEQ_INCREMENTAL_STATE_CLEARED, resolves every event's name. */
static void test_interning_across_clears(void **state) {
  reset();
  fake_ns = 5000000000;
  trak_clock_set_fake(fake_clock);
  trak_session *s = start_text(
      "data_sources { config { name: \"track_event\" interceptor_config { name: \"recorder\" } } }"
      " incremental_state_config { clear_period_ms: 1 }");
  static const char *const expect[] = {"one", "two", "three", "one", "two"};
  for (int i = 0; i < 40; i++) {
    fake_ns += 300000;
    switch (i % 5) {
    case 0:
    case 3:
      TRAK_EVENT_INSTANT(cat_i, "one");
      break;
    case 1:
    case 4:
      TRAK_EVENT_INSTANT(cat_i, "two");
      break;
    default:
      TRAK_EVENT_INSTANT(cat_i, "three");
    }
  }
  trak_session_free(s);
  trak_clock_set_fake(NULL);
  assert_int_equal(rec.nnames, 40);
  for (int i = 0; i < 40; i++)
    assert_string_equal(rec.names[i], expect[i % 5]);
  assert_true(rec.cleared >= 10);
}

/* The helper itself: entries, a clear, and a stale iid. */
static void test_interning_helper(void **state) {
  trak_interning *in = trak_interning_new();
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_nested id = trak_pb_begin_nested(&b, TRAK_PB_TracePacket_interned_data);
  trak_pb_nested e = trak_pb_begin_nested(&b, TRAK_PB_InternedData_event_categories);
  trak_pb_put_varint(&b, TRAK_PB_EventCategory_iid, 3);
  trak_pb_put_string(&b, TRAK_PB_EventCategory_name, "cat");
  trak_pb_end_nested(&b, e);
  e = trak_pb_begin_nested(&b, TRAK_PB_InternedData_debug_annotation_names);
  trak_pb_put_varint(&b, TRAK_PB_DebugAnnotationName_iid, 1);
  trak_pb_put_string(&b, TRAK_PB_DebugAnnotationName_name, "arg");
  trak_pb_end_nested(&b, e);
  trak_pb_end_nested(&b, id);
  assert_int_equal(trak_interning_update(in, b.start, trak_pb_buf_len(&b), 0), 0);
  size_t n;
  const char *s = trak_interning_get(in, TRAK_PB_InternedData_event_categories, 3, &n);
  assert_non_null(s);
  assert_int_equal(n, 3);
  assert_memory_equal(s, "cat", 3);
  assert_null(trak_interning_get(in, TRAK_PB_InternedData_event_names, 3, &n));
  assert_non_null(trak_interning_get(in, TRAK_PB_InternedData_debug_annotation_names, 1, &n));
  /* A clearing packet without entries empties every kind. */
  assert_int_equal(
      trak_interning_update(in, NULL, 0, TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED), 0);
  assert_null(trak_interning_get(in, TRAK_PB_InternedData_event_categories, 3, &n));
  const uint8_t bad[] = {0x62, 0x05, 0x0a}; /* interned_data longer than the packet */
  assert_int_equal(trak_interning_update(in, bad, sizeof bad, 0), TRAK_EFORMAT);
  trak_pb_buf_free(&b);
  trak_interning_free(in);
}

/* An interceptor named before it exists fails the start with a clear message; registered
** afterwards, it takes effect for the next session. */
static void test_registered_later(void **state) {
  const char *cfg =
      "data_sources { config { name: \"track_event\" interceptor_config { name: \"late\" } } }";
  trak_session *s;
  trak_error err;
  assert_int_equal(trak_session_new_from_text(cfg, &s, &err), 0);
  assert_int_equal(trak_session_start(s, &err), TRAK_ENOTFOUND);
  assert_non_null(strstr(err.message, "interceptor \"late\" is not registered"));
  TRAK_EVENT_INSTANT(cat_i, "nothing records this");
  trak_session_free(s);

  reset();
  trak_interceptor_desc d = {"late", &rec, NULL, NULL, NULL, r_tls_new, r_tls_free, r_packet};
  assert_int_equal(trak_interceptor_register(&d, NULL), 0);
  assert_int_equal(trak_interceptor_register(&d, &err), TRAK_EINVAL);
  s = start_text(cfg);
  TRAK_EVENT_INSTANT(cat_i, "late one");
  trak_session_free(s);
  assert_int_equal(rec.events, 1);
  assert_string_equal(rec.names[0], "late one");
}

static trak_data_source *ds_icpt;
static void ds_write(trak_ds_ctx *ctx, void *user) {
  trak_pb_buf *p = trak_ds_new_packet(ctx);
  trak_pb_put_varint(p, TRAK_PB_TracePacket_timestamp, 1234);
}

/* A custom data source's packets go to the interceptor its config names. */
static void test_custom_data_source(void **state) {
  reset();
  trak_data_source_desc d;
  memset(&d, 0, sizeof d);
  d.name = "test.icpt.ds";
  assert_int_equal(trak_data_source_register(&d, &ds_icpt, NULL), 0);
  trak_session *s =
      start_text("data_sources { config { name: \"test.icpt.ds\" interceptor_config { name: "
                 "\"recorder\" } } }");
  TRAK_DATA_SOURCE_TRACE(ds_icpt, ds_write, NULL);
  TRAK_DATA_SOURCE_TRACE(ds_icpt, ds_write, NULL);
  trak_session_stop(s, NULL);
  assert_int_equal(rec.packets, 2);
  assert_string_equal(rec.last_ds, "test.icpt.ds");
  assert_int_equal(trace_len(s), 0);
  trak_session_free(s);
}

static int refuse_setup(void *user, const uint8_t *config, size_t len, void **state,
                        trak_error *err) {
  return trak_error_set(err, TRAK_EINVAL, "refusing on purpose");
}
static int unwind_stops;
static void unwind_stop(void *user, uint32_t instance, void *state) {
  unwind_stops++;
}

/* An interceptor whose setup fails fails the session's start; the instances set up before it
** are stopped again, and the session can be freed. */
static void test_failing_setup_unwinds(void **state) {
  trak_interceptor_desc d = {"refuser", NULL, refuse_setup, NULL, NULL, NULL, NULL, r_packet};
  assert_int_equal(trak_interceptor_register(&d, NULL), 0);
  trak_data_source_desc dd;
  memset(&dd, 0, sizeof dd);
  dd.name = "test.unwind";
  dd.stop = unwind_stop;
  trak_data_source *ds;
  assert_int_equal(trak_data_source_register(&dd, &ds, NULL), 0);
  trak_session *s;
  trak_error err;
  assert_int_equal(trak_session_new_from_text("data_sources { config { name: \"test.unwind\" } }"
                                              " data_sources { config { name: \"track_event\""
                                              " interceptor_config { name: \"refuser\" } } }",
                                              &s, &err),
                   0);
  assert_int_equal(trak_session_start(s, &err), TRAK_EINVAL);
  assert_string_equal(err.message, "refusing on purpose");
  assert_int_equal(unwind_stops, 1);
  assert_false(TRAK_DATA_SOURCE_ENABLED(ds));
  trak_session_free(s);
  assert_int_equal(unwind_stops, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_activation_by_config),    cmocka_unit_test(test_thread_state_lifetime),
      cmocka_unit_test(test_interning_across_clears), cmocka_unit_test(test_interning_helper),
      cmocka_unit_test(test_registered_later),        cmocka_unit_test(test_custom_data_source),
      cmocka_unit_test(test_failing_setup_unwinds),
  };
  return cmocka_run_group_tests(tests, group_setup, NULL);
}
