/*
** The trace_stats packet under concurrency (also run under ThreadSanitizer): a reader thread
** drains a session while writers run and while the main thread stops it. However the reads
** interleave with the stop, the trace they add up to holds every event, then exactly one
** trace_stats packet, last, and its loss figure is the session's.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>

#include "sdk_decode.h"
#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_mts, "mts", "trace_stats under threads");

enum { THREADS = 4, EVENTS = 2000, ROUNDS = 5 };

static trak_session *session;
static dec_bytes bytes;

static void *writer(void *arg) {
  for (int i = 0; i < EVENTS; i++)
    TRAK_EVENT_INSTANT(cat_mts, "tick", TRAK_ARG("i", i));
  return arg;
}

/* What the reader saw go wrong (cmocka asserts only on the main thread). */
static const char *reader_error;

/* Reads until a read ends with the trace_stats packet (after the stop), then once more. */
static void *reader(void *arg) {
  for (int done = 0; !done && !reader_error;) {
    size_t before = bytes.n;
    if (dec_read_session(session, &bytes) != 0) reader_error = "a read failed";
    size_t len = bytes.n - before;
    done = dec_cut_trace_stats(bytes.p + before, &len);
  }
  size_t before = bytes.n;
  if (dec_read_session(session, &bytes) != 0) reader_error = "the last read failed";
  if (bytes.n != before) reader_error = "a read after the trace_stats packet returned data";
  return arg;
}

static void test_reads_racing_the_stop(void **state) {
  for (int round = 0; round < ROUNDS; round++) {
    trak_session_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.buffer_size_kb = 16 * 1024;
    assert_int_equal(trak_session_new(&cfg, &session, NULL), 0);
    assert_int_equal(trak_session_start(session, NULL), 0);
    memset(&bytes, 0, sizeof bytes);
    pthread_t rd, th[THREADS];
    pthread_create(&rd, NULL, reader, NULL);
    for (int i = 0; i < THREADS; i++)
      pthread_create(&th[i], NULL, writer, NULL);
    for (int i = 0; i < THREADS; i++)
      pthread_join(th[i], NULL);
    assert_int_equal(trak_session_stop(session, NULL), 0); /* while the reader reads */
    pthread_join(rd, NULL);
    if (reader_error) {
      fprintf(stderr, "round %d: %s\n", round, reader_error);
      fail();
    }

    trak_session_stats st;
    trak_session_get_stats(session, &st);
    dec_trace t;
    memset(&t, 0, sizeof t);
    assert_int_equal(dec_trace_decode(&t, bytes.p, bytes.n), 0);
    if (t.errors) fail_msg("round %d: %s", round, t.error_text); /* e.g. a packet after it */
    assert_int_equal(t.trace_stats, 1);
    assert_int_equal(st.packets_lost + st.packets_overwritten + st.packets_skipped, 0);
    assert_int_equal(t.stats_packet_loss, 0);
    assert_int_equal(dec_count(&t, 3, "tick"), THREADS * EVENTS);
    assert_int_equal(st.bytes_read, bytes.n);
    dec_trace_free(&t);
    free(bytes.p);
    trak_session_free(session);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reads_racing_the_stop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
