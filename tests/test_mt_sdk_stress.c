/*
** Multi-threaded stress test of the SDK (also run under ThreadSanitizer): N threads write M
** slices each into two sessions at once, one large enough for everything and one small
** discarding one. The large one must hold every event; for the small one every event is
** either in the trace or counted in packets_lost, exactly. A reader thread drains the large
** session while writers run, and threads come and go.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <unistd.h>
#include <stdatomic.h>

#include "sdk_decode.h"
#include "testutil.h"
#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_mt, "mt", "stress");

enum { THREADS = 6, EVENTS = 3000 };

static void *writer(void *arg) {
  int id = (int)(intptr_t)arg;
  for (int i = 0; i < EVENTS; i++) {
    TRAK_EVENT(cat_mt, "slice", TRAK_ARG("thread", id), TRAK_ARG("i", i));
    if (i % 100 == 0) TRAK_EVENT_INSTANT(cat_mt, "mark");
  }
  return NULL;
}

static _Atomic int writers_done;
static trak_session *big;
static dec_bytes big_bytes;

static void *reader(void *arg) {
  while (!atomic_load(&writers_done))
    assert_int_equal(dec_read_session(big, &big_bytes), 0);
  return arg;
}

static void test_stress(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.buffer_size_kb = 64 * 1024;
  assert_int_equal(trak_session_new(&cfg, &big, NULL), 0);
  cfg.buffer_size_kb = 64;
  cfg.chunk_size = 1024;
  cfg.fill_policy = TRAK_FILL_DISCARD;
  trak_session *small = NULL;
  assert_int_equal(trak_session_new(&cfg, &small, NULL), 0);
  assert_int_equal(trak_session_start(big, NULL), 0);
  assert_int_equal(trak_session_start(small, NULL), 0);

  pthread_t rd, th[THREADS];
  pthread_create(&rd, NULL, reader, NULL);
  for (int i = 0; i < THREADS; i++)
    pthread_create(&th[i], NULL, writer, (void *)(intptr_t)i);
  for (int i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
  atomic_store(&writers_done, 1);
  pthread_join(rd, NULL);
  assert_int_equal(trak_session_stop(big, NULL), 0);
  assert_int_equal(trak_session_stop(small, NULL), 0);
  assert_int_equal(dec_read_session(big, &big_bytes), 0);

  const size_t slices = (size_t)THREADS * EVENTS, marks = (size_t)THREADS * (EVENTS / 100);
  dec_trace t;
  memset(&t, 0, sizeof t);
  assert_int_equal(dec_trace_decode(&t, big_bytes.p, big_bytes.n), 0);
  if (t.errors) fail_msg("big: %s", t.error_text);
  assert_int_equal(dec_count(&t, 1, "slice"), slices);
  assert_int_equal(dec_count(&t, 2, NULL), slices);
  assert_int_equal(dec_count(&t, 3, "mark"), marks);
  /* Per thread, the i arguments arrive complete and in order. */
  int next[THREADS] = {0};
  for (size_t i = 0; i < t.nev; i++) {
    if (t.ev[i].type != 1) continue;
    int id = (int)t.ev[i].args[0].u;
    assert_int_equal((int)t.ev[i].args[1].u, next[id]);
    next[id]++;
  }
  trak_session_stats st;
  trak_session_get_stats(big, &st);
  assert_int_equal(st.packets_lost, 0);
  dec_trace_free(&t);

  dec_bytes sb = {0};
  assert_int_equal(dec_read_session(small, &sb), 0);
  memset(&t, 0, sizeof t);
  assert_int_equal(dec_trace_decode(&t, sb.p, sb.n), 0);
  if (t.errors) fail_msg("small: %s", t.error_text);
  trak_session_get_stats(small, &st);
  assert_true(st.packets_lost > 0);
  assert_int_equal(t.nev + st.packets_lost, 2 * slices + marks);
  dec_trace_free(&t);

  free(big_bytes.p);
  free(sb.p);
  trak_session_free(big);
  trak_session_free(small);
}

/* Sessions start and stop while threads write: nothing crashes, every trace decodes. */
static _Atomic int stop_writing;
static void *spinner(void *arg) {
  while (!atomic_load(&stop_writing)) {
    TRAK_EVENT(cat_mt, "spin");
  }
  return arg;
}

static void test_start_stop_under_load(void **state) {
  pthread_t th[3];
  for (int i = 0; i < 3; i++)
    pthread_create(&th[i], NULL, spinner, NULL);
  for (int round = 0; round < 20; round++) {
    trak_session_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.buffer_size_kb = 256;
    trak_session *s = NULL;
    assert_int_equal(trak_session_new(&cfg, &s, NULL), 0);
    assert_int_equal(trak_session_start(s, NULL), 0);
    for (volatile int k = 0; k < 100000; k++) {
    }
    assert_int_equal(trak_session_stop(s, NULL), 0);
    dec_bytes b = {0};
    assert_int_equal(dec_read_session(s, &b), 0);
    dec_trace t;
    memset(&t, 0, sizeof t);
    assert_int_equal(dec_trace_decode(&t, b.p, b.n), 0);
    if (t.errors) fail_msg("round %d: %s", round, t.error_text);
    dec_trace_free(&t);
    free(b.p);
    trak_session_free(s);
  }
  atomic_store(&stop_writing, 1);
  for (int i = 0; i < 3; i++)
    pthread_join(th[i], NULL);
}

/* Streaming while threads write and another thread flushes: the file holds every event. */
static void test_streaming_concurrent_flush(void **state) {
  char path[] = "/tmp/trak_mt_stream_XXXXXX";
  tu_temp_file(path);
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.buffer_size_kb = 8 * 1024;
  cfg.fill_policy = TRAK_FILL_DISCARD;
  cfg.output_path = path;
  cfg.file_write_period_ms = 2;
  trak_session *s = NULL;
  assert_int_equal(trak_session_new(&cfg, &s, NULL), 0);
  assert_int_equal(trak_session_start(s, NULL), 0);
  pthread_t th[3];
  for (int i = 0; i < 3; i++)
    pthread_create(&th[i], NULL, writer, (void *)(intptr_t)i);
  for (int i = 0; i < 20; i++)
    assert_int_equal(trak_session_flush(s, NULL), 0);
  for (int i = 0; i < 3; i++)
    pthread_join(th[i], NULL);
  assert_int_equal(trak_session_stop(s, NULL), 0);
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  trak_session_free(s);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  dec_bytes b = {malloc(64 << 20), 0};
  b.n = fread(b.p, 1, 64 << 20, f);
  fclose(f);
  unlink(path);
  dec_trace t;
  memset(&t, 0, sizeof t);
  assert_int_equal(dec_trace_decode(&t, b.p, b.n), 0);
  if (t.errors) fail_msg("%s", t.error_text);
  assert_int_equal(st.packets_lost, 0);
  assert_int_equal(dec_count(&t, 1, "slice"), 3 * EVENTS);
  assert_int_equal(dec_count(&t, 2, NULL), 3 * EVENTS);
  dec_trace_free(&t);
  free(b.p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stress),
      cmocka_unit_test(test_start_stop_under_load),
      cmocka_unit_test(test_streaming_concurrent_flush),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
