/*
** The trace_stats packet of in-process sessions, end to end: a session with forced losses (a
** tiny discard buffer, an unread ring) yields a trace whose stats table, once imported, reports
** exactly the figures trak_session_get_stats() gives; the packet comes once, at the end of the
** trace (read or file), never in reads of a running session; writers never use the service's
** sequence.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include "sdk_decode.h"
#include "testutil.h"
#include "trak/processor.h"
#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_st, "stats", "trace_stats tests");

static trak_session *start(trak_session_config *cfg) {
  trak_session *s = NULL;
  trak_error err;
  if (trak_session_new(cfg, &s, &err) != 0) fail_msg("%s", err.message);
  assert_int_equal(trak_session_start(s, &err), 0);
  return s;
}

/* What the diag callback heard about losses the trace reports. */
static struct {
  int calls;
  char stat[64], message[256];
} heard;

static void on_diag(void *user, uint64_t packet, uint64_t offset, trak_severity severity,
                    const char *stat, const char *message) {
  if (strncmp(stat, "traced_", 7) != 0) return;
  assert_int_equal(severity, TRAK_SEVERITY_DATA_LOSS);
  heard.calls++;
  snprintf(heard.stat, sizeof heard.stat, "%s", stat);
  snprintf(heard.message, sizeof heard.message, "%s", message);
}

static trak_processor *import(const uint8_t *data, size_t len) {
  trak_processor *p;
  trak_error err;
  trak_processor_options opts = {on_diag, NULL, NULL, 0};
  memset(&heard, 0, sizeof heard);
  assert_int_equal(trak_processor_new(&opts, &p, &err), 0);
  assert_int_equal(trak_processor_feed(p, data, len, &err), 0);
  if (trak_processor_finish(p, &err) != 0) fail_msg("%s", err.message);
  return p;
}

/* The value of stats row `name` (buffer `idx`, or -1 for a NULL idx); fails if absent. */
static int64_t stat(trak_processor *p, const char *name, int idx) {
  char sql[256];
  if (idx < 0)
    snprintf(sql, sizeof sql, "SELECT value FROM stats WHERE name = '%s' AND idx IS NULL", name);
  else
    snprintf(sql, sizeof sql, "SELECT value FROM stats WHERE name = '%s' AND idx = %d", name, idx);
  trak_query *q;
  trak_error err;
  if (trak_query_open(p, sql, &q, NULL, &err) != 0) fail_msg("%s", err.message);
  if (trak_query_next(q, &err) != 1) fail_msg("no stats row %s[%d]", name, idx);
  int64_t v = trak_query_int(q, 0);
  assert_int_equal(trak_query_next(q, &err), 0); /* one row only */
  trak_query_free(q);
  return v;
}

static const char *severity(trak_processor *p, const char *name) {
  static char out[32];
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT severity FROM stats WHERE name = '%s' LIMIT 1", name);
  trak_query *q;
  assert_int_equal(trak_query_open(p, sql, &q, NULL, NULL), 0);
  assert_int_equal(trak_query_next(q, NULL), 1);
  snprintf(out, sizeof out, "%s", trak_query_string(q, 0));
  trak_query_free(q);
  return out;
}

/* Reads the stopped session `s`, checks that its trace ends with the one trace_stats packet
** and that the imported stats rows equal trak_session_get_stats(): what Perfetto's tools
** would show about this session. Returns the packet loss the table reports. */
static int64_t check_stats_rows(trak_session *s, const trak_session_config *cfg) {
  uint8_t *data;
  size_t len;
  assert_int_equal(trak_session_read(s, &data, &len, NULL), 0);
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  dec_trace t;
  memset(&t, 0, sizeof t);
  assert_int_equal(dec_trace_decode(&t, data, len), 0);
  if (t.errors) fail_msg("trace error: %s", t.error_text);
  assert_int_equal(t.trace_stats, 1);
  for (int i = 0; i < t.nseqs; i++)
    assert_true(t.seqs[i].id >= 2); /* 1 is the service's */
  size_t before_stats = len;
  assert_true(dec_cut_trace_stats(data, &before_stats));

  trak_processor *p = import(data, len);
  uint64_t loss = st.packets_lost + st.packets_overwritten + st.packets_skipped;
  assert_int_equal(stat(p, "traced_buf_trace_writer_packet_loss", 0), loss);
  assert_int_equal(t.stats_packet_loss, loss);
  assert_int_equal(stat(p, "traced_buf_chunks_overwritten", 0), st.chunks_overwritten);
  assert_int_equal(stat(p, "traced_buf_chunks_discarded", 0), st.chunks_discarded);
  assert_int_equal(stat(p, "traced_buf_chunks_written", 0), st.chunks_written);
  assert_int_equal(stat(p, "traced_buf_bytes_written", 0), st.bytes_written);
  /* bytes_read counts the trace before the packet; the session's figure counts it too. */
  assert_int_equal(stat(p, "traced_buf_bytes_read", 0), before_stats);
  assert_int_equal(st.bytes_read, len);
  uint64_t chunk = cfg->chunk_size ? cfg->chunk_size : 4096;
  uint64_t nchunks = (uint64_t)cfg->buffer_size_kb * 1024 / chunk;
  assert_int_equal(stat(p, "traced_buf_buffer_size", 0), (nchunks < 2 ? 2 : nchunks) * chunk);
  assert_int_equal(stat(p, "traced_producers_connected", -1), 1);
  assert_int_equal(stat(p, "traced_producers_seen", -1), 1);
  assert_int_equal(stat(p, "traced_chunks_discarded", -1), 0);
  assert_string_equal(severity(p, "traced_buf_trace_writer_packet_loss"), "data_loss");
  /* A loss is also told to the diag callback (what `trak check` lists), once. */
  assert_int_equal(heard.calls, loss ? 1 : 0);
  if (loss) {
    char want[64];
    snprintf(want, sizeof want, "= %llu in buffer 0", (unsigned long long)loss);
    assert_string_equal(heard.stat, "traced_buf_trace_writer_packet_loss");
    assert_non_null(strstr(heard.message, want));
  }
  /* One buffer: no row for a second one. */
  trak_query *q;
  assert_int_equal(trak_query_open(p, "SELECT COUNT(*) FROM stats WHERE idx > 0", &q, NULL, NULL),
                   0);
  assert_int_equal(trak_query_next(q, NULL), 1);
  assert_int_equal(trak_query_int(q, 0), 0);
  trak_query_free(q);
  trak_processor_free(p);
  dec_trace_free(&t);
  free(data);
  return (int64_t)loss;
}

static void test_discard_losses_reach_the_stats_table(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.buffer_size_kb = 2;
  cfg.chunk_size = 512;
  cfg.fill_policy = TRAK_FILL_DISCARD;
  trak_session *s = start(&cfg);
  for (int i = 0; i < 1000; i++)
    TRAK_EVENT_INSTANT(cat_st, "flood", TRAK_ARG("i", i));
  assert_int_equal(trak_session_stop(s, NULL), 0);
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  assert_true(st.packets_lost > 0);
  assert_int_equal(check_stats_rows(s, &cfg), st.packets_lost); /* discard: no other loss */
  trak_session_free(s);
}

static void test_ring_overwrites_reach_the_stats_table(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.buffer_size_kb = 4;
  cfg.chunk_size = 512;
  cfg.fill_policy = TRAK_FILL_RING;
  trak_session *s = start(&cfg);
  for (int i = 0; i < 5000; i++)
    TRAK_EVENT_INSTANT(cat_st, "wrap", TRAK_ARG("i", i));
  assert_int_equal(trak_session_stop(s, NULL), 0);
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  assert_true(st.chunks_overwritten > 0);
  assert_true(check_stats_rows(s, &cfg) >= (int64_t)st.packets_overwritten);
  trak_session_free(s);
}

/* Appends one read of `s` to `all`; returns 1 if it ended with the trace_stats packet. */
static int read_part(trak_session *s, dec_bytes *all) {
  size_t before = all->n;
  assert_int_equal(dec_read_session(s, all), 0);
  size_t len = all->n - before;
  return dec_cut_trace_stats(all->p + before, &len);
}

static void test_once_at_the_end_of_reads(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  trak_session *s = start(&cfg);
  dec_bytes all = {0};
  TRAK_EVENT_INSTANT(cat_st, "running");
  assert_false(read_part(s, &all)); /* a running session's read: no stats */
  assert_true(all.n > 0);
  size_t first = all.n;
  assert_false(read_part(s, &all)); /* nothing new, still none */
  assert_int_equal(all.n, first);
  TRAK_EVENT_INSTANT(cat_st, "last");
  assert_int_equal(trak_session_stop(s, NULL), 0);
  assert_true(read_part(s, &all));
  size_t whole = all.n;
  assert_false(read_part(s, &all)); /* once per session */
  assert_int_equal(all.n, whole);
  dec_trace t;
  memset(&t, 0, sizeof t);
  assert_int_equal(dec_trace_decode(&t, all.p, all.n), 0);
  if (t.errors) fail_msg("trace error: %s", t.error_text); /* e.g. a packet after the stats */
  assert_int_equal(t.trace_stats, 1);
  assert_int_equal(dec_count(&t, 3, "running") + dec_count(&t, 3, "last"), 2);
  dec_trace_free(&t);
  free(all.p);
  trak_session_free(s);
}

static void test_file_ends_with_trace_stats(void **state) {
  char path[] = "/tmp/trak_stats_XXXXXX";
  tu_temp_file(path);
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.output_path = path;
  cfg.file_write_period_ms = 10;
  trak_session *s = start(&cfg);
  for (int i = 0; i < 100; i++) {
    TRAK_EVENT_INSTANT(cat_st, "to file");
    if (i == 50) assert_int_equal(trak_session_flush(s, NULL), 0); /* a drain: no stats */
  }
  assert_int_equal(trak_session_stop(s, NULL), 0);
  uint8_t *rest;
  size_t rest_len;
  assert_int_equal(trak_session_read(s, &rest, &rest_len, NULL), 0);
  assert_int_equal(rest_len, 0); /* the file had it all, the stats packet included */
  free(rest);
  size_t len;
  char *file = tu_read_file(path, &len);
  dec_trace t;
  memset(&t, 0, sizeof t);
  assert_int_equal(dec_trace_decode(&t, (const uint8_t *)file, len), 0);
  if (t.errors) fail_msg("trace error: %s", t.error_text);
  assert_int_equal(t.trace_stats, 1);
  assert_int_equal(t.stats_packet_loss, 0);
  assert_int_equal(dec_count(&t, 3, "to file"), 100);
  dec_trace_free(&t);
  free(file);
  unlink(path);
  trak_session_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_discard_losses_reach_the_stats_table),
      cmocka_unit_test(test_ring_overwrites_reach_the_stats_table),
      cmocka_unit_test(test_once_at_the_end_of_reads),
      cmocka_unit_test(test_file_ends_with_trace_stats),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
