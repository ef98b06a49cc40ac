/*
** Startup tracing tests: events recorded before any session exists are adopted by the first
** session that starts (in order, on their tracks, none twice, a slice begun before and ended
** after the handover intact), dropped and counted when the timeout passes first or on abort,
** a startup buffer's own losses reach the adopting trace's stats, and a second begin is
** refused while one records.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "sdk_decode.h"
#include "testutil.h"
#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_st, "startup", "startup tracing tests");

enum { B = 1, E = 2, I = 3 };

static int ended_outcome;
static void on_end(int outcome, void *user) {
  (void)user;
  ended_outcome = outcome;
}

static trak_session *start_session(void) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  trak_session *s = NULL;
  trak_error err;
  if (trak_session_new(&cfg, &s, &err) != 0) fail_msg("%s", err.message);
  assert_int_equal(trak_session_start(s, &err), 0);
  return s;
}

static void read_trace(trak_session *s, dec_trace *t) {
  dec_bytes all = {0};
  assert_int_equal(trak_session_stop(s, NULL), 0);
  assert_int_equal(dec_read_session(s, &all), 0);
  memset(t, 0, sizeof *t);
  assert_int_equal(dec_trace_decode(t, all.p, all.n), 0);
  if (t->errors) fail_msg("trace error: %s", t->error_text);
  free(all.p);
}

/* Waits (polling, up to 20 s) until the startup session's outcome is `want`. */
static void wait_outcome(int want) {
  trak_startup_stats st;
  for (int i = 0; i < 2000; i++) {
    trak_startup_tracing_get_stats(&st);
    if (st.outcome == want) return;
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  }
  fail_msg("startup outcome %d, want %d", st.outcome, want);
}

static void *early_thread(void *arg) {
  (void)arg;
  for (int i = 0; i < 20; i++)
    TRAK_EVENT_INSTANT(cat_st, "early_worker", TRAK_ARG("i", i));
  return NULL;
}

static void test_adopted_in_order(void **state) {
  (void)state;
  trak_startup_stats before, after;
  trak_startup_tracing_get_stats(&before);
  trak_startup_opts opts = {0};
  opts.on_end = on_end;
  ended_outcome = 0;
  trak_error err;
  assert_int_equal(trak_startup_tracing_begin(NULL, &opts, &err), 0);
  trak_startup_tracing_get_stats(&after);
  assert_int_equal(after.outcome, TRAK_STARTUP_RECORDING);

  TRAK_EVENT_BEGIN(cat_st, "Spanning"); /* ends after the handover */
  for (int i = 0; i < 100; i++)
    TRAK_EVENT_INSTANT(cat_st, "early", TRAK_ARG("i", i));
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, early_thread, NULL), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
  trak_track named = trak_track_named("StartupTrack", 0);
  TRAK_EVENT_INSTANT(cat_st, "early_on_track", TRAK_TRACK(named));

  trak_session *s = start_session();
  for (int i = 0; i < 10; i++)
    TRAK_EVENT_INSTANT(cat_st, "late", TRAK_ARG("i", i));
  TRAK_EVENT_END(cat_st);
  dec_trace t;
  read_trace(s, &t);

  /* Every early event once, with its argument, before every late one. */
  assert_int_equal(dec_count(&t, I, "early"), 100);
  assert_int_equal(dec_count(&t, I, "early_worker"), 20);
  assert_int_equal(dec_count(&t, I, "late"), 10);
  uint64_t last_early = 0, first_late = UINT64_MAX;
  int next = 0;
  for (size_t i = 0; i < t.nev; i++) {
    const dec_event *ev = &t.ev[i];
    if (strcmp(ev->name, "early") == 0) {
      assert_int_equal(ev->nargs, 1);
      assert_int_equal((int64_t)ev->args[0].u, next++); /* in order within the sequence */
      assert_int_equal(ev->track, trak_track_thread());
      if (ev->ts > last_early) last_early = ev->ts;
    }
    if (strcmp(ev->name, "late") == 0 && ev->ts < first_late) first_late = ev->ts;
  }
  assert_true(last_early < first_late);
  /* The slice begun before the handover ends after it, on the same (thread) track. */
  const dec_event *b = dec_find(&t, B, "Spanning");
  assert_non_null(b);
  assert_int_equal(b->track, trak_track_thread());
  size_t ends = 0;
  for (size_t i = 0; i < t.nev; i++)
    if (t.ev[i].type == E && t.ev[i].track == trak_track_thread() && t.ev[i].ts > first_late)
      ends++;
  assert_int_equal(ends, 1);
  /* A custom track described before the handover is described in the adopted data. */
  const dec_event *on = dec_find(&t, I, "early_on_track");
  assert_non_null(on);
  assert_int_equal(on->track, named);
  const dec_track *tr = dec_track_find(&t, named);
  assert_non_null(tr);
  assert_string_equal(tr->name, "StartupTrack");

  trak_startup_tracing_get_stats(&after);
  assert_int_equal(after.outcome, TRAK_STARTUP_ADOPTED);
  assert_int_equal(ended_outcome, TRAK_STARTUP_ADOPTED);
  assert_true(after.packets_adopted - before.packets_adopted >= 122);
  assert_int_equal(after.packets_dropped, before.packets_dropped);
  trak_session_stats ss;
  trak_session_get_stats(s, &ss);
  assert_int_equal(ss.packets_lost, 0);
  dec_trace_free(&t);
  trak_session_free(s);
}

static void test_expired_is_dropped_and_counted(void **state) {
  (void)state;
  trak_startup_stats before, after;
  trak_startup_tracing_get_stats(&before);
  trak_startup_opts opts = {0};
  opts.timeout_ms = 50;
  opts.on_end = on_end;
  assert_int_equal(trak_startup_tracing_begin(NULL, &opts, NULL), 0);
  for (int i = 0; i < 10; i++)
    TRAK_EVENT_INSTANT(cat_st, "expired", TRAK_ARG("i", i));
  wait_outcome(TRAK_STARTUP_EXPIRED);
  assert_int_equal(ended_outcome, TRAK_STARTUP_EXPIRED);
  trak_startup_tracing_get_stats(&after);
  assert_true(after.packets_dropped - before.packets_dropped >= 10);
  assert_int_equal(after.packets_adopted, before.packets_adopted);

  trak_session *s = start_session(); /* too late: nothing to adopt */
  TRAK_EVENT_INSTANT(cat_st, "late");
  dec_trace t;
  read_trace(s, &t);
  assert_int_equal(dec_count(&t, I, "expired"), 0);
  assert_int_equal(dec_count(&t, I, "late"), 1);
  dec_trace_free(&t);
  trak_session_free(s);
}

static void test_abort_drops(void **state) {
  (void)state;
  trak_startup_stats before, after;
  trak_startup_tracing_get_stats(&before);
  assert_int_equal(trak_startup_tracing_begin(NULL, NULL, NULL), 0);
  trak_error err;
  assert_int_equal(trak_startup_tracing_begin(NULL, NULL, &err), TRAK_ESTATE);
  for (int i = 0; i < 5; i++)
    TRAK_EVENT_INSTANT(cat_st, "aborted");
  trak_startup_tracing_abort();
  trak_startup_tracing_get_stats(&after);
  assert_int_equal(after.outcome, TRAK_STARTUP_ABORTED);
  assert_true(after.packets_dropped - before.packets_dropped >= 5);
  trak_session *s = start_session();
  dec_trace t;
  read_trace(s, &t);
  assert_int_equal(dec_count(&t, I, "aborted"), 0);
  dec_trace_free(&t);
  trak_session_free(s);
}

/* A startup buffer that filled up: its losses are the adopting trace's losses too. */
static void test_startup_loss_reaches_the_trace(void **state) {
  (void)state;
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.buffer_size_kb = 4;
  cfg.chunk_size = 512;
  cfg.fill_policy = TRAK_FILL_DISCARD;
  trak_session *small = NULL;
  assert_int_equal(trak_session_new(&cfg, &small, NULL), 0);
  trak_startup_stats before, after;
  trak_startup_tracing_get_stats(&before);
  assert_int_equal(trak_startup_tracing_begin(small, NULL, NULL), 0);
  for (int i = 0; i < 1000; i++)
    TRAK_EVENT_INSTANT(cat_st, "flood", TRAK_ARG("i", i));
  trak_session *s = start_session();
  trak_startup_tracing_get_stats(&after);
  uint64_t dropped = after.packets_dropped - before.packets_dropped;
  uint64_t adopted = after.packets_adopted - before.packets_adopted;
  assert_true(dropped > 0);
  assert_true(adopted > 0);
  trak_session_stats ss;
  trak_session_get_stats(s, &ss);
  assert_int_equal(ss.packets_lost, dropped);
  dec_trace t;
  read_trace(s, &t);
  size_t flood = dec_count(&t, I, "flood");
  assert_true(flood > 0 && flood < 1000);
  assert_true(flood + dropped >= 1000); /* every event is either in the trace or counted */
  assert_int_equal(t.stats_packet_loss, dropped);
  dec_trace_free(&t);
  trak_session_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_adopted_in_order),
      cmocka_unit_test(test_expired_is_dropped_and_counted),
      cmocka_unit_test(test_abort_drops),
      cmocka_unit_test(test_startup_loss_reaches_the_trace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
