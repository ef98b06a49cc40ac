/*
** SDK session tests: loss and the writer's restart after it, ring buffer overwrites, stats,
** reading while running, streaming into a file, exiting threads, fork, periodic incremental
** state clearing, and sessions configured from TraceConfig bytes and text.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sdk_decode.h"
#include "testutil.h"
#include "trak/pbtxt.h"
#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_s, "sess", "session tests");
TRAK_CATEGORY_DEFINE(cat_other, "other", "disabled by configs");

enum { B = 1, E = 2, I = 3 };

static trak_session *start(trak_session_config *cfg) {
  trak_session *s = NULL;
  trak_error err;
  if (trak_session_new(cfg, &s, &err) != 0) fail_msg("%s", err.message);
  assert_int_equal(trak_session_start(s, &err), 0);
  return s;
}

static void decode(const dec_bytes *all, dec_trace *t) {
  memset(t, 0, sizeof *t);
  assert_int_equal(dec_trace_decode(t, all->p, all->n), 0);
  if (t->errors) fail_msg("trace error: %s", t->error_text);
}

/* The Perfetto failure mode the issue describes: a writer drops events when its buffer fills
** and keeps referring to interned names written before the drop. Here the session fills,
** events are lost, the buffer is drained, and later events must all decode with their names. */
static void test_loss_restarts_incremental_state(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.buffer_size_kb = 4;
  cfg.chunk_size = 512;
  cfg.fill_policy = TRAK_FILL_DISCARD;
  trak_session *s = start(&cfg);
  dec_bytes all = {0};
  const int before = 2000, after = 50;
  for (int i = 0; i < before; i++)
    TRAK_EVENT_INSTANT(cat_s, "before", TRAK_ARG("i", i));
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  assert_true(st.packets_lost > 0);
  assert_int_equal(dec_read_session(s, &all), 0); /* frees the chunks */
  for (int i = 0; i < after; i++)
    TRAK_EVENT_INSTANT(cat_s, "after", TRAK_ARG("i", i));
  assert_int_equal(trak_session_stop(s, NULL), 0);
  assert_int_equal(dec_read_session(s, &all), 0);
  trak_session_get_stats(s, &st);
  dec_trace t;
  decode(&all, &t);
  /* Exact accounting: every event is either in the trace or counted lost. */
  assert_int_equal(dec_count(&t, I, "before") + dec_count(&t, I, "after") + st.packets_lost,
                   before + after);
  /* The writer's next packet after the loss restarted the sequence and said so. */
  assert_int_equal(dec_count(&t, I, "after"), after);
  assert_true(t.dropped_flags >= 1);
  assert_true(t.clears >= 2);
  const dec_event *e = dec_find(&t, I, "after");
  assert_string_equal(e->args[0].name, "i");
  assert_string_equal(e->cats, "sess");
  free(all.p);
  dec_trace_free(&t);
  trak_session_free(s);
}

static void test_ring_overwrite(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.buffer_size_kb = 4;
  cfg.chunk_size = 512;
  trak_session *s = start(&cfg);
  for (int i = 0; i < 20000; i++) {
    TRAK_EVENT(cat_s, "ring", TRAK_ARG("i", i));
  }
  assert_int_equal(trak_session_stop(s, NULL), 0);
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  assert_true(st.chunks_overwritten > 0);
  assert_true(st.packets_overwritten > 0);
  assert_int_equal(st.packets_lost, 0);
  dec_bytes all = {0};
  assert_int_equal(dec_read_session(s, &all), 0);
  dec_trace t;
  decode(&all, &t); /* no reference to lost interned data, no invalid incremental clock */
  assert_true(dec_count(&t, B, "ring") >= 40); /* most of the ring decodes */
  assert_true(dec_count(&t, B, "ring") < 20000);
  /* The newest event survived. */
  const dec_event *last = NULL;
  for (size_t i = 0; i < t.nev; i++)
    if (t.ev[i].type == B) last = &t.ev[i];
  assert_int_equal((int64_t)last->args[0].u, 19999);
  free(all.p);
  dec_trace_free(&t);
  trak_session_free(s);
}

static void test_read_while_running_and_stats(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  trak_session *s = start(&cfg);
  dec_bytes all = {0};
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 100; i++)
      TRAK_EVENT_INSTANT(cat_s, "tick");
    assert_int_equal(dec_read_session(s, &all), 0);
  }
  assert_int_equal(trak_session_stop(s, NULL), 0);
  assert_int_equal(dec_read_session(s, &all), 0);
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  dec_trace t;
  decode(&all, &t);
  assert_int_equal(dec_count(&t, I, "tick"), 300); /* each packet read exactly once */
  assert_int_equal(st.packets_written, (uint64_t)t.packets);
  assert_true(st.bytes_written > 0 && st.bytes_read == all.n);
  assert_true(st.chunks_written >= 1);
  assert_int_equal(st.packets_lost + st.chunks_overwritten + st.packets_skipped, 0);
  /* Only the read after the stop ended with trace_stats, reporting no loss. */
  assert_int_equal(t.trace_stats, 1);
  assert_int_equal(t.stats_packet_loss, 0);
  assert_int_equal(t.errors, 0);
  free(all.p);
  dec_trace_free(&t);
  trak_session_free(s);
}

static void *short_lived(void *arg) {
  trak_thread_set_name("short-lived");
  for (int i = 0; i < 10; i++) {
    TRAK_EVENT(cat_s, "worker");
  }
  return arg;
}

static void test_thread_exit_loses_nothing(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  trak_session *s = start(&cfg);
  pthread_t th[4];
  for (int i = 0; i < 4; i++)
    pthread_create(&th[i], NULL, short_lived, NULL);
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  assert_int_equal(trak_session_stop(s, NULL), 0);
  dec_bytes all = {0};
  assert_int_equal(dec_read_session(s, &all), 0);
  dec_trace t;
  decode(&all, &t);
  assert_int_equal(dec_count(&t, B, "worker"), 40);
  assert_int_equal(dec_count(&t, E, NULL), 40);
  int named = 0;
  for (int i = 0; i < t.ntracks; i++)
    named += strcmp(t.tracks[i].thread_name, "short-lived") == 0;
  assert_int_equal(named, 4);
  free(all.p);
  dec_trace_free(&t);
  trak_session_free(s);
}

static void test_streaming_to_file(void **state) {
  char path[] = "/tmp/trak_sdk_stream_XXXXXX";
  tu_temp_file(path);
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.buffer_size_kb = 8; /* far smaller than the trace: streaming must keep up */
  cfg.chunk_size = 512;
  cfg.fill_policy = TRAK_FILL_DISCARD;
  cfg.output_path = path;
  cfg.file_write_period_ms = 1;
  trak_session *s = start(&cfg);
  int written = 0;
  for (int round = 0; round < 50; round++) {
    for (int i = 0; i < 20; i++, written++)
      TRAK_EVENT_INSTANT(cat_s, "streamed");
    assert_int_equal(trak_session_flush(s, NULL), 0);
  }
  assert_int_equal(trak_session_stop(s, NULL), 0);
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  trak_session_free(s);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  dec_bytes all = {malloc(1 << 20), 0};
  all.n = fread(all.p, 1, 1 << 20, f);
  fclose(f);
  unlink(path);
  dec_trace t;
  decode(&all, &t);
  assert_int_equal(st.packets_lost, 0);
  assert_int_equal(dec_count(&t, I, "streamed"), written);
  assert_true(all.n > 8 * 1024); /* more than the buffer could hold */
  free(all.p);
  dec_trace_free(&t);
}

static void test_fork_child_starts_off(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  trak_session *s = start(&cfg);
  TRAK_EVENT_INSTANT(cat_s, "parent-before");
  pid_t pid = fork();
  if (pid == 0) {
    int bad = TRAK_CATEGORY_ENABLED(cat_s) ? 1 : 0;
    TRAK_EVENT_INSTANT(cat_s, "child"); /* goes nowhere */
    trak_session *cs = NULL;
    if (trak_session_new(&cfg, &cs, NULL) || trak_session_start(cs, NULL)) bad |= 2;
    TRAK_EVENT_INSTANT(cat_s, "child-own");
    trak_session_stop(cs, NULL);
    uint8_t *data;
    size_t len;
    trak_session_read(cs, &data, &len, NULL);
    dec_trace t;
    memset(&t, 0, sizeof t);
    if (dec_trace_decode(&t, data, len) || t.errors || dec_count(&t, I, "child-own") != 1 ||
        dec_count(&t, I, "child") != 0)
      bad |= 4;
    const dec_track *pr = dec_track_find(&t, trak_track_process());
    if (!pr || pr->pid != getpid()) bad |= 8;
    _exit(bad);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  TRAK_EVENT_INSTANT(cat_s, "parent-after");
  assert_int_equal(trak_session_stop(s, NULL), 0);
  dec_bytes all = {0};
  assert_int_equal(dec_read_session(s, &all), 0);
  dec_trace t;
  decode(&all, &t);
  assert_int_equal(dec_count(&t, I, "parent-before"), 1);
  assert_int_equal(dec_count(&t, I, "parent-after"), 1);
  assert_int_equal(dec_count(&t, I, "child"), 0);
  free(all.p);
  dec_trace_free(&t);
  trak_session_free(s);
}

static void test_periodic_clear(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.clear_period_ms = 2;
  trak_session *s = start(&cfg);
  for (int i = 0; i < 5; i++) {
    TRAK_EVENT_INSTANT(cat_s, "periodic");
    nanosleep(&(struct timespec){0, 3 * 1000 * 1000}, NULL);
  }
  assert_int_equal(trak_session_stop(s, NULL), 0);
  dec_bytes all = {0};
  assert_int_equal(dec_read_session(s, &all), 0);
  dec_trace t;
  decode(&all, &t);
  assert_int_equal(dec_count(&t, I, "periodic"), 5);
  assert_true(t.clears >= 5);
  assert_int_equal(t.firsts, 1);
  free(all.p);
  dec_trace_free(&t);
  trak_session_free(s);
}

/* TraceConfig bytes built with the encoder. */
static void test_config_from_proto(void **state) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_nested n = trak_pb_begin_nested(&b, TRAK_PB_TraceConfig_buffers);
  trak_pb_put_varint(&b, TRAK_PB_TraceConfig_BufferConfig_size_kb, 256);
  trak_pb_put_varint(&b, TRAK_PB_TraceConfig_BufferConfig_fill_policy,
                     TRAK_PB_TraceConfig_BufferConfig_DISCARD);
  trak_pb_end_nested(&b, n);
  n = trak_pb_begin_nested(&b, TRAK_PB_TraceConfig_data_sources);
  trak_pb_nested c = trak_pb_begin_nested(&b, TRAK_PB_TraceConfig_DataSource_config);
  trak_pb_put_string(&b, TRAK_PB_DataSourceConfig_name, "track_event");
  trak_pb_nested te = trak_pb_begin_nested(&b, TRAK_PB_DataSourceConfig_track_event_config);
  trak_pb_put_string(&b, TRAK_PB_TrackEventConfig_disabled_categories, "other");
  trak_pb_end_nested(&b, te);
  trak_pb_end_nested(&b, c);
  trak_pb_end_nested(&b, n);
  trak_session *s = NULL;
  trak_error err;
  assert_int_equal(trak_session_new_from_proto(b.start, trak_pb_buf_len(&b), &s, &err), 0);
  trak_pb_buf_free(&b);
  assert_int_equal(trak_session_start(s, NULL), 0);
  assert_true(TRAK_CATEGORY_ENABLED(cat_s));
  assert_false(TRAK_CATEGORY_ENABLED(cat_other));
  trak_session_free(s);
  /* Malformed bytes are reported. */
  static const uint8_t junk[] = {0x0a, 0x05, 0x01};
  assert_int_equal(trak_session_new_from_proto(junk, sizeof junk, &s, &err), TRAK_EFORMAT);
}

static void test_config_from_text(void **state) {
  trak_session *s = NULL;
  trak_error err;
  int rc = trak_session_new_from_text(
      "buffers { size_kb: 128 fill_policy: RING_BUFFER }\n"
      "data_sources { config { name: \"track_event\"\n"
      "  track_event_config { disabled_categories: \"*\" enabled_categories: \"sess\" } } }\n",
      &s, &err);
  if (rc == TRAK_EUNSUPPORTED) skip(); /* trak_pbtxt_parse not merged yet */
  assert_int_equal(rc, 0);
  assert_int_equal(trak_session_start(s, NULL), 0);
  assert_true(TRAK_CATEGORY_ENABLED(cat_s));
  assert_false(TRAK_CATEGORY_ENABLED(cat_other));
  trak_session_free(s);
}

/* A packet larger than a chunk cannot be written: it is counted lost and the sequence goes on
** (restarting its state, since the lost packet may have carried interned data). */
static void test_oversized_packet(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.chunk_size = 1024;
  trak_session *s = start(&cfg);
  static char big[4000];
  memset(big, 'x', sizeof big - 1);
  TRAK_EVENT_INSTANT(cat_s, "small");
  TRAK_EVENT_INSTANT(cat_s, "huge", TRAK_ARG("payload", big));
  TRAK_EVENT_INSTANT(cat_s, "small");
  assert_int_equal(trak_session_stop(s, NULL), 0);
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  assert_int_equal(st.packets_lost, 1);
  dec_bytes all = {0};
  assert_int_equal(dec_read_session(s, &all), 0);
  dec_trace t;
  decode(&all, &t);
  assert_int_equal(dec_count(&t, I, "small"), 2);
  assert_int_equal(dec_count(&t, I, "huge"), 0);
  assert_int_equal(t.dropped_flags, 1);
  free(all.p);
  dec_trace_free(&t);
  trak_session_free(s);
}

static void test_bad_usage(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.chunk_size = 100;
  trak_session *s = NULL;
  trak_error err;
  assert_int_equal(trak_session_new(&cfg, &s, &err), TRAK_EINVAL);
  cfg.chunk_size = 0;
  assert_int_equal(trak_session_new(&cfg, &s, &err), 0);
  assert_int_equal(trak_session_stop(s, &err), TRAK_ESTATE);
  assert_int_equal(trak_session_start(s, &err), 0);
  assert_int_equal(trak_session_start(s, &err), TRAK_ESTATE);
  trak_session *many[TRAK_MAX_SESSIONS];
  int n = 0;
  for (; n < TRAK_MAX_SESSIONS; n++) {
    assert_int_equal(trak_session_new(&cfg, &many[n], &err), 0);
    if (trak_session_start(many[n], &err) != 0) break;
  }
  assert_int_equal(n, TRAK_MAX_SESSIONS - 1); /* one slot is taken by `s` */
  assert_int_equal(err.code, TRAK_ENOSPC);
  for (int i = 0; i <= n && i < TRAK_MAX_SESSIONS; i++)
    trak_session_free(many[i]);
  trak_session_free(s);
  trak_session_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_loss_restarts_incremental_state),
      cmocka_unit_test(test_ring_overwrite),
      cmocka_unit_test(test_read_while_running_and_stats),
      cmocka_unit_test(test_thread_exit_loses_nothing),
      cmocka_unit_test(test_streaming_to_file),
      cmocka_unit_test(test_fork_child_starts_off),
      cmocka_unit_test(test_periodic_clear),
      cmocka_unit_test(test_config_from_proto),
      cmocka_unit_test(test_config_from_text),
      cmocka_unit_test(test_oversized_packet),
      cmocka_unit_test(test_bad_usage),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
