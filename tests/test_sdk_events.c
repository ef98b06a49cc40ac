/*
** SDK event tests: every kind of event and option is written through a real session, read
** back as a serialized Trace and checked by decoding it (tests/support/sdk_decode.h).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>

#include "sdk_decode.h"
#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_a, "alpha", "events of the test");
TRAK_CATEGORY_DEFINE(cat_b, "beta", "more events");
TRAK_CATEGORY_DEFINE(cat_dbg, "alpha.debug", "verbose", "debug");
TRAK_CATEGORY_GROUP_DEFINE(cat_ab, "alpha,beta");

enum { B = 1, E = 2, I = 3, C = 4 };

static trak_session *start(const trak_session_config *cfg) {
  trak_session_config def;
  memset(&def, 0, sizeof def);
  trak_session *s = NULL;
  trak_error err;
  assert_int_equal(trak_session_new(cfg ? cfg : &def, &s, &err), 0);
  assert_int_equal(trak_session_start(s, &err), 0);
  return s;
}

/* Stops `s`, decodes its trace into `t`, frees it; asserts the trace is well-formed. */
static void finish(trak_session *s, dec_trace *t) {
  uint8_t *data;
  size_t len;
  assert_int_equal(trak_session_stop(s, NULL), 0);
  assert_int_equal(trak_session_read(s, &data, &len, NULL), 0);
  memset(t, 0, sizeof *t);
  assert_int_equal(dec_trace_decode(t, data, len), 0);
  if (t->errors) fail_msg("trace error: %s", t->error_text);
  free(data);
  trak_session_free(s);
}

static void scoped(int depth) {
  TRAK_EVENT(cat_a, "scoped");
  if (depth > 0) {
    scoped(depth - 1);
    return; /* leaves by return: the cleanup still ends the slice */
  }
  TRAK_EVENT_INSTANT(cat_a, "leaf");
}

static void test_slices_and_instants(void **state) {
  trak_session *s = start(NULL);
  scoped(2);
  TRAK_EVENT_BEGIN(cat_b, "manual");
  TRAK_EVENT_END(cat_b);
  for (int i = 0; i < 3; i++) {
    TRAK_EVENT(cat_a, "loop");
  }
  dec_trace t;
  finish(s, &t);
  assert_int_equal(dec_count(&t, B, "scoped"), 3);
  assert_int_equal(dec_count(&t, I, "leaf"), 1);
  assert_int_equal(dec_count(&t, B, "manual"), 1);
  assert_int_equal(dec_count(&t, B, "loop"), 3);
  assert_int_equal(dec_count(&t, E, NULL), 7);
  assert_string_equal(dec_find(&t, B, "manual")->cats, "beta");
  assert_string_equal(dec_find(&t, B, "scoped")->cats, "alpha");
  /* Nesting: begin, begin, begin, instant, end, end, end; timestamps never go back. */
  assert_int_equal(t.ev[0].type, B);
  assert_int_equal(t.ev[3].type, I);
  assert_int_equal(t.ev[4].type, E);
  for (size_t i = 1; i < t.nev; i++)
    assert_true(t.ev[i].ts >= t.ev[i - 1].ts);
  /* On the thread's track by default, described with this thread's tid. */
  const dec_track *th = dec_track_find(&t, trak_track_thread());
  assert_non_null(th);
  assert_true(th->is_thread);
  assert_int_equal(t.ev[0].track, trak_track_thread());
  assert_int_equal(t.firsts, 1);
  assert_true(t.clears >= 1);
  assert_true(t.snapshots >= 1);
  dec_trace_free(&t);
}

static void test_debug_args(void **state) {
  trak_session *s = start(NULL);
  int x = 5;
  const char *str = "hello";
  TRAK_EVENT_INSTANT(cat_a, "args", TRAK_ARG("b", (_Bool)1), TRAK_ARG("i", -42),
                     TRAK_ARG("ll", -5000000000LL), TRAK_ARG("u", 42u),
                     TRAK_ARG("ull", 18000000000000000000ull), TRAK_ARG("d", 2.5),
                     TRAK_ARG("s", str), TRAK_ARG("p", &x));
  TRAK_EVENT_INSTANT(cat_a, "args2", TRAK_ARG("i", 7), TRAK_ARG("f", 1.5f), TRAK_ARG("lit", "x"));
  dec_trace t;
  finish(s, &t);
  const dec_event *e = dec_find(&t, I, "args");
  assert_non_null(e);
  assert_int_equal(e->nargs, 8);
  assert_string_equal(e->args[0].name, "b");
  assert_int_equal(e->args[0].kind, TRAK_PB_DebugAnnotation_bool_value);
  assert_int_equal(e->args[0].u, 1);
  assert_int_equal(e->args[1].kind, TRAK_PB_DebugAnnotation_int_value);
  assert_int_equal((int64_t)e->args[1].u, -42);
  assert_int_equal((int64_t)e->args[2].u, -5000000000LL);
  assert_int_equal(e->args[3].kind, TRAK_PB_DebugAnnotation_uint_value);
  assert_int_equal(e->args[3].u, 42);
  assert_true(e->args[4].u == 18000000000000000000ull);
  assert_int_equal(e->args[5].kind, TRAK_PB_DebugAnnotation_double_value);
  assert_true(e->args[5].d == 2.5);
  assert_int_equal(e->args[6].kind, TRAK_PB_DebugAnnotation_string_value);
  assert_string_equal(e->args[6].s, "hello");
  assert_int_equal(e->args[7].kind, TRAK_PB_DebugAnnotation_pointer_value);
  assert_true(e->args[7].u == (uint64_t)(uintptr_t)&x);
  const dec_event *e2 = dec_find(&t, I, "args2");
  assert_string_equal(e2->args[0].name, "i"); /* interned name reused */
  assert_int_equal(e2->args[1].kind, TRAK_PB_DebugAnnotation_double_value);
  assert_string_equal(e2->args[2].s, "x");
  dec_trace_free(&t);
}

/* Around the fast path's limits: long strings, many arguments, repeated (interned) names. */
static void test_many_and_long_args(void **state) {
  trak_session *s = start(NULL);
  const char *s30 = "abcdefghijklmnopqrstuvwxyz0123";
  const char *s100 =
      "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567"
      "890123456789";
  for (int k = 0; k < 2; k++) {
    TRAK_EVENT_INSTANT(cat_a, "four", TRAK_ARG("a", s30), TRAK_ARG("b", s30), TRAK_ARG("c", s30),
                       TRAK_ARG("d", s30));
    TRAK_EVENT_INSTANT(cat_a, "long", TRAK_ARG("s", s100));
    TRAK_EVENT_INSTANT(cat_a, "ten", TRAK_ARG("a", 1), TRAK_ARG("b", 2), TRAK_ARG("c", 3),
                       TRAK_ARG("d", 4), TRAK_ARG("e", 5), TRAK_ARG("f", 6), TRAK_ARG("g", 7),
                       TRAK_ARG("h", 8.5), TRAK_ARG("i", "x"), TRAK_ARG("j", -1LL));
    TRAK_EVENT_INSTANT(cat_a, "big", TRAK_ARG("u", ~0ull), TRAK_ARG("i", (long long)INT64_MIN),
                       TRAK_ARG("d", -1e300), TRAK_ARG("s", s30));
  }
  dec_trace t;
  finish(s, &t);
  for (size_t i = 0; i < t.nev; i++) {
    const dec_event *e = &t.ev[i];
    if (!strcmp(e->name, "four")) {
      assert_int_equal(e->nargs, 4);
      assert_string_equal(e->args[3].name, "d");
      assert_string_equal(e->args[3].s, s30);
    } else if (!strcmp(e->name, "long")) {
      assert_int_equal(e->nargs, 1);
      assert_memory_equal(e->args[0].s, s100, 63); /* the reader keeps 63 characters */
    } else if (!strcmp(e->name, "ten")) {
      assert_int_equal(e->nargs, DEC_MAX_ARGS); /* the reader keeps 8 */
      assert_true(e->args[7].d == 8.5);
    } else if (!strcmp(e->name, "big")) {
      assert_true(e->args[0].u == ~0ull);
      assert_true((int64_t)e->args[1].u == INT64_MIN);
      assert_true(e->args[2].d == -1e300);
    }
  }
  assert_int_equal(dec_count(&t, I, "four") + dec_count(&t, I, "long") + dec_count(&t, I, "ten") +
                       dec_count(&t, I, "big"),
                   8);
  dec_trace_free(&t);
}

static void test_dynamic_names_and_timestamps(void **state) {
  trak_session *s = start(NULL);
  char name[32];
  for (int i = 0; i < 3; i++) {
    snprintf(name, sizeof name, "job-%d", i);
    TRAK_EVENT_DYNAMIC(cat_a, name);
  }
  uint64_t t0 = trak_clock_now();
  TRAK_EVENT_BEGIN(cat_a, "past", TRAK_TIMESTAMP(t0 - 1000000));
  TRAK_EVENT_END(cat_a, TRAK_TIMESTAMP(t0 - 500000));
  TRAK_EVENT_INSTANT_DYNAMIC(cat_a, name);
  dec_trace t;
  finish(s, &t);
  assert_int_equal(dec_count(&t, B, "job-0"), 1);
  assert_int_equal(dec_count(&t, B, "job-2"), 1);
  assert_int_equal(dec_count(&t, I, "job-2"), 1);
  const dec_event *p = dec_find(&t, B, "past");
  assert_non_null(p);
  assert_true(p->explicit_clock);
  assert_true(p->ts == t0 - 1000000);
  int found = 0;
  for (size_t i = 0; i < t.nev; i++)
    if (t.ev[i].type == E && t.ev[i].explicit_clock && t.ev[i].ts == t0 - 500000) found = 1;
  assert_true(found);
  dec_trace_free(&t);
}

static void test_counters(void **state) {
  trak_session *s = start(NULL);
  trak_track mem = trak_track_counter("memory", TRAK_UNIT_SIZE_BYTES, 0);
  trak_track load = trak_track_counter("load", TRAK_UNIT_UNSPECIFIED, 0);
  TRAK_COUNTER(cat_a, mem, 4096);
  TRAK_COUNTER(cat_a, mem, 8192LL); /* the second sample takes the fast path */
  TRAK_COUNTER(cat_a, load, 0.75);
  TRAK_COUNTER(cat_a, load, 0.75);
  TRAK_COUNTER(cat_a, mem, -5);
  dec_trace t;
  finish(s, &t);
  assert_int_equal(dec_count(&t, C, NULL), 5);
  int64_t want[] = {4096, 8192, -5};
  int ints = 0;
  for (size_t i = 0; i < t.nev; i++)
    if (t.ev[i].type == C && !t.ev[i].counter_is_double) {
      assert_int_equal(t.ev[i].track, mem);
      assert_int_equal(t.ev[i].counter_i, want[ints++]);
      assert_string_equal(t.ev[i].cats, "alpha");
    }
  assert_int_equal(ints, 3);
  const dec_event *c = dec_find(&t, C, NULL);
  assert_int_equal(c->track, mem);
  assert_true(c->has_counter && !c->counter_is_double);
  assert_int_equal(c->counter_i, 4096);
  const dec_track *k = dec_track_find(&t, mem);
  assert_non_null(k);
  assert_true(k->is_counter);
  assert_int_equal(k->unit, TRAK_UNIT_SIZE_BYTES);
  assert_string_equal(k->name, "memory");
  int seen_double = 0;
  for (size_t i = 0; i < t.nev; i++)
    if (t.ev[i].type == C && t.ev[i].counter_is_double) {
      assert_true(t.ev[i].counter_d == 0.75);
      assert_int_equal(t.ev[i].track, load);
      seen_double = 1;
    }
  assert_true(seen_double);
  dec_trace_free(&t);
}

static void *flow_target(void *arg) {
  TRAK_EVENT(cat_a, "consume", TRAK_TERMINATING_FLOW(77));
  return arg;
}

static void test_flows(void **state) {
  trak_session *s = start(NULL);
  for (int i = 0; i < 2; i++) { /* the second time through the fast path */
    TRAK_EVENT(cat_a, "produce", TRAK_FLOW(77 + 100 * i), TRAK_FLOW(78));
  }
  pthread_t th;
  pthread_create(&th, NULL, flow_target, NULL);
  pthread_join(th, NULL);
  dec_trace t;
  finish(s, &t);
  const dec_event *p = dec_find(&t, B, "produce");
  assert_int_equal(dec_count(&t, B, "produce"), 2);
  assert_int_equal(p[0].nflows, 2);
  const dec_event *p2 = p + 2; /* begin, end, begin */
  assert_string_equal(p2->name, "produce");
  assert_int_equal(p2->flows[0], 177);
  assert_int_equal(p2->flows[1], 78);
  assert_int_equal(p->flows[0], 77);
  assert_int_equal(p->flows[1], 78);
  const dec_event *c = dec_find(&t, B, "consume");
  assert_int_equal(c->nterm, 1);
  assert_int_equal(c->term[0], 77);
  assert_true(c->track != p->track); /* another thread, another track */
  dec_trace_free(&t);
}

/* A user interned type (entries in an InternedData field the SDK does not use itself). */
static void write_player(trak_pb_buf *entry, uint64_t iid, const void *value) {
  trak_pb_put_varint(entry, 1, iid);
  trak_pb_put_string(entry, 2, (const char *)value);
}
static trak_interned_type player_type = {500, write_player, 0};

static void extra_fields(trak_event_ctx *ctx, void *user) {
  trak_pb_buf *b = trak_event_buf(ctx);
  trak_pb_put_varint(b, 1001, *(int *)user);
  uint64_t iid = trak_event_intern(ctx, &player_type, 1, "player one");
  trak_pb_put_varint(b, 1002, iid);
}

static int callback_calls;
static void counting(trak_event_ctx *ctx, void *user) {
  callback_calls++;
}

static void test_callback_and_user_interning(void **state) {
  trak_session *s = start(NULL);
  int score = 1234;
  for (int i = 0; i < 3; i++)
    TRAK_EVENT_INSTANT(cat_a, "cb", TRAK_CALLBACK(extra_fields, &score));
  callback_calls = 0;
  TRAK_EVENT_INSTANT(cat_dbg, "off", TRAK_CALLBACK(counting, NULL)); /* debug: disabled */
  assert_int_equal(callback_calls, 0);
  trak_session *s2 = start(NULL);
  TRAK_EVENT_INSTANT(cat_a, "twice", TRAK_CALLBACK(counting, NULL));
  assert_int_equal(callback_calls, 2); /* once per session */
  dec_trace t2;
  finish(s2, &t2);
  dec_trace_free(&t2);
  dec_trace t;
  finish(s, &t);
  assert_int_equal(dec_count(&t, I, "cb"), 3);
  const dec_event *e = dec_find(&t, I, "cb");
  assert_int_equal(e->extra_field, 1001);
  assert_int_equal(e->extra_value, 1234);
  assert_int_equal(t.user_interned, 1); /* written once, then referenced */
  assert_int_equal(dec_count(&t, I, "off"), 0);
  dec_trace_free(&t);
}

static void test_tracks(void **state) {
  trak_thread_set_name("main-thread");
  trak_process_set_name("sdk-test");
  trak_track parent = trak_track_named("parent", 0);
  trak_track child = trak_track_uuid("child", parent);
  trak_track_desc d;
  memset(&d, 0, sizeof d);
  d.name = "child";
  d.parent = parent;
  d.child_ordering = TRAK_ORDER_EXPLICIT;
  d.sibling_order_rank = -3;
  d.has_sibling_order_rank = 1;
  assert_int_equal(trak_track_set_descriptor(child, &d), 0);
  trak_track grandchild = trak_track_named("grandchild", child);
  assert_true(trak_track_uuid("child", parent) == child); /* stable */
  assert_true(trak_track_uuid("child", 0) != child);      /* depends on the parent */
  trak_track gone = trak_track_named("gone", 0);
  trak_track_erase_descriptor(gone);

  trak_session *s = start(NULL);
  for (int i = 0; i < 2; i++) {
    TRAK_EVENT(cat_a, "on-grandchild", TRAK_TRACK(grandchild));
    TRAK_EVENT_INSTANT(cat_a, "on-process", TRAK_TRACK(trak_track_process()));
    TRAK_EVENT_INSTANT(cat_a, "on-gone", TRAK_TRACK(gone));
  }
  dec_trace t;
  finish(s, &t);
  const dec_event *g = dec_find(&t, B, "on-grandchild");
  assert_int_equal(g->track, grandchild);
  int ended_there = 0;
  for (size_t i = 0; i < t.nev; i++)
    if (t.ev[i].type == E && t.ev[i].track == grandchild) ended_there++;
  assert_int_equal(ended_there, 2);
  const dec_track *k = dec_track_find(&t, grandchild);
  assert_non_null(k);
  assert_int_equal(k->count, 1); /* once per sequence */
  assert_int_equal(k->parent, child);
  const dec_track *c = dec_track_find(&t, child);
  assert_null(c); /* never used in this session: not described */
  assert_null(dec_track_find(&t, gone));
  assert_int_equal(dec_find(&t, I, "on-process")->track, trak_track_process());
  const dec_track *th = dec_track_find(&t, trak_track_thread());
  assert_string_equal(th->thread_name, "main-thread");
  const dec_track *pr = dec_track_find(&t, trak_track_process());
  assert_string_equal(pr->process_name, "sdk-test");
  dec_trace_free(&t);

  /* Descriptors of parents are written when the user sets them during a session. */
  s = start(NULL);
  assert_int_equal(trak_track_set_descriptor(child, &d), 0);
  TRAK_EVENT_INSTANT(cat_a, "x", TRAK_TRACK(grandchild));
  finish(s, &t);
  c = dec_track_find(&t, child);
  assert_non_null(c);
  assert_int_equal(c->child_ordering, TRAK_ORDER_EXPLICIT);
  assert_true(c->has_rank);
  assert_int_equal(c->rank, -3);
  assert_int_equal(c->parent, parent);
  dec_trace_free(&t);
}

static void test_categories_in_session(void **state) {
  trak_category *dyn = trak_category_dynamic("runtime.cat");
  assert_ptr_equal(dyn, trak_category_dynamic("runtime.cat"));
  assert_false(TRAK_CATEGORY_ENABLED(cat_a));
  const char *const enabled[] = {"alpha", "runtime.*", NULL};
  const char *const disabled[] = {"*", NULL};
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.categories.enabled_categories = enabled;
  cfg.categories.disabled_categories = disabled;
  trak_session *s = start(&cfg);
  assert_true(TRAK_CATEGORY_ENABLED(cat_a));
  assert_false(TRAK_CATEGORY_ENABLED(cat_b));
  assert_true(TRAK_CATEGORY_ENABLED(cat_ab)); /* a member is enabled */
  assert_true(TRAK_CATEGORY_ENABLED(dyn));
  TRAK_EVENT_INSTANT(cat_a, "a");
  TRAK_EVENT_INSTANT(cat_b, "b");
  TRAK_EVENT_INSTANT(cat_ab, "ab");
  TRAK_EVENT_INSTANT(dyn, "dyn");
  trak_category *late = trak_category_dynamic("runtime.late");
  assert_true(TRAK_CATEGORY_ENABLED(late)); /* created while the session runs */
  dec_trace t;
  finish(s, &t);
  assert_false(TRAK_CATEGORY_ENABLED(cat_a));
  assert_int_equal(dec_count(&t, I, "a"), 1);
  assert_int_equal(dec_count(&t, I, "b"), 0);
  assert_string_equal(dec_find(&t, I, "ab")->cats, "alpha,beta");
  assert_string_equal(dec_find(&t, I, "dyn")->cats, "runtime.cat");
  dec_trace_free(&t);
}

TRAK_TEST_CATEGORY_PREFIXES("test", "dontship");

static void test_test_prefixes(void **state) {
  assert_non_null(trak_category_test("test"));
  assert_non_null(trak_category_test("test.foo"));
  assert_non_null(trak_category_test("dontship.x"));
  assert_null(trak_category_test("testing"));
  assert_null(trak_category_test("prod.x"));
}

static void test_concurrent_sessions(void **state) {
  enum { N = 8 };
  static const char *const only_alpha[] = {"alpha", NULL};
  static const char *const only_beta[] = {"beta", NULL};
  static const char *const all[] = {"*", NULL};
  trak_session *s[N];
  for (int i = 0; i < N; i++) {
    trak_session_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.buffer_size_kb = 64;
    cfg.categories.enabled_categories = i % 2 ? only_alpha : only_beta;
    cfg.categories.disabled_categories = all;
    s[i] = start(&cfg);
  }
  for (int k = 0; k < 10; k++) {
    TRAK_EVENT_INSTANT(cat_a, "A");
    TRAK_EVENT_INSTANT(cat_b, "B");
  }
  for (int i = 0; i < N; i++) {
    dec_trace t;
    trak_session_stats st;
    trak_session_get_stats(s[i], &st);
    assert_true(st.packets_written >= 10);
    assert_int_equal(st.packets_lost, 0);
    finish(s[i], &t);
    assert_int_equal(dec_count(&t, I, "A"), i % 2 ? 10 : 0);
    assert_int_equal(dec_count(&t, I, "B"), i % 2 ? 0 : 10);
    dec_trace_free(&t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slices_and_instants),
      cmocka_unit_test(test_debug_args),
      cmocka_unit_test(test_many_and_long_args),
      cmocka_unit_test(test_dynamic_names_and_timestamps),
      cmocka_unit_test(test_counters),
      cmocka_unit_test(test_flows),
      cmocka_unit_test(test_callback_and_user_interning),
      cmocka_unit_test(test_tracks),
      cmocka_unit_test(test_categories_in_session),
      cmocka_unit_test(test_test_prefixes),
      cmocka_unit_test(test_concurrent_sessions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
