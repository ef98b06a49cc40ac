/*
** Tests of the public processor API (include/trak/processor.h): feeding bytes in any split,
** gzip and zlib compressed_packets, truncated and corrupt input, typed rows and column names,
** errors as values, stats, diag messages made only when read, export to a SQLite file, and
** keeping the heap (TRAK_PROCESSOR_KEEP_HEAP).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>
#include <zlib.h>

#include "testutil.h"
#include "trak/pb.h"
#include "trak/pbtxt.h"
#include "trak/processor.h"
#include "trak/protos.h"

/* ---- trace building with the encoder ---------------------------------------------------- */

static void put_descriptor(trak_pb_buf *b, uint64_t uuid, const char *name) {
  trak_pb_nested pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
  trak_pb_nested td = trak_pb_begin_nested(b, TRAK_PB_TracePacket_track_descriptor);
  trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_uuid, uuid);
  trak_pb_put_string(b, TRAK_PB_TrackDescriptor_name, name);
  trak_pb_end_nested(b, td);
  trak_pb_end_nested(b, pkt);
}

/* Writes one TracePacket (as a Trace.packet field) holding a TrackEvent on sequence 1. */
static void put_event(trak_pb_buf *b, uint64_t ts, uint64_t uuid, int type, const char *name) {
  trak_pb_nested pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp, ts);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, 1);
  trak_pb_nested ev = trak_pb_begin_nested(b, TRAK_PB_TracePacket_track_event);
  trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, (uint64_t)type);
  trak_pb_put_varint(b, TRAK_PB_TrackEvent_track_uuid, uuid);
  if (name) trak_pb_put_string(b, TRAK_PB_TrackEvent_name, name);
  trak_pb_end_nested(b, ev);
  trak_pb_end_nested(b, pkt);
}

/* A trace with one track and `n` nested-free slices: begin at 10*i, end at 10*i+5. */
static void build_trace(trak_pb_buf *b, int n) {
  trak_pb_buf_init_heap(b);
  put_descriptor(b, 1, "track");
  for (int i = 0; i < n; i++) {
    put_event(b, (uint64_t)(10 * i), 1, TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN, "s");
    put_event(b, (uint64_t)(10 * i + 5), 1, TRAK_PB_TrackEvent_TYPE_SLICE_END, NULL);
  }
}

static trak_processor *import_chunks(const uint8_t *data, size_t len, size_t chunk) {
  trak_processor *p;
  trak_error err = {0};
  assert_int_equal(trak_processor_new(NULL, &p, &err), 0);
  for (size_t off = 0; off < len; off += chunk) {
    size_t n = len - off < chunk ? len - off : chunk;
    assert_int_equal(trak_processor_feed(p, data + off, n, &err), 0);
  }
  assert_int_equal(trak_processor_finish(p, &err), 0);
  return p;
}

static int64_t query_int(trak_processor *p, const char *sql) {
  trak_query *q;
  trak_error err = {0};
  assert_int_equal(trak_query_open(p, sql, &q, NULL, &err), 0);
  assert_non_null(q);
  assert_int_equal(trak_query_next(q, &err), 1);
  int64_t v = trak_query_int(q, 0);
  trak_query_free(q);
  return v;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_chunk_splits_give_same_tables(void **state) {
  trak_pb_buf b;
  build_trace(&b, 50);
  size_t splits[] = {1, 2, 3, 7, 64, 4096, 1 << 20};
  for (size_t i = 0; i < sizeof splits / sizeof *splits; i++) {
    trak_processor *p = import_chunks(b.start, trak_pb_buf_len(&b), splits[i]);
    assert_int_equal(query_int(p, "SELECT COUNT(*) FROM slice WHERE dur = 5"), 50);
    assert_int_equal(query_int(p, "SELECT SUM(ts) FROM slice"), 10 * (49 * 50 / 2));
    assert_int_equal(trak_processor_event_count(p), 100);
    assert_int_equal(trak_processor_stat_value(p, "trace_truncated"), 0);
    trak_processor_free(p);
  }
  trak_pb_buf_free(&b);
}

/* TRAK_PROCESSOR_KEEP_HEAP changes only what finishing gives back to the system, not the tables. */
static void test_keep_heap_gives_same_tables(void **state) {
  trak_pb_buf b;
  build_trace(&b, 5000);
  for (unsigned flags = 0; flags <= TRAK_PROCESSOR_KEEP_HEAP; flags += TRAK_PROCESSOR_KEEP_HEAP) {
    trak_processor_options opts = {NULL, NULL, NULL, flags};
    trak_processor *p;
    trak_error err = {0};
    assert_int_equal(trak_processor_new(&opts, &p, &err), 0);
    assert_int_equal(trak_processor_feed(p, b.start, trak_pb_buf_len(&b), &err), 0);
    assert_int_equal(trak_processor_finish(p, &err), 0);
    assert_int_equal(query_int(p, "SELECT COUNT(*) FROM slice WHERE dur = 5"), 5000);
    assert_int_equal(query_int(p, "SELECT SUM(ts) FROM slice"), 10 * (4999 * 5000 / 2));
    trak_processor_free(p);
  }
  trak_pb_buf_free(&b);
}

static void test_gzip_in_chunks(void **state) {
  trak_pb_buf b;
  build_trace(&b, 1000);
  uLongf zlen = compressBound(trak_pb_buf_len(&b)) + 64;
  uint8_t *gz = malloc(zlen);
  /* gzip framing via deflateInit2 with windowBits 15 + 16. */
  z_stream z = {0};
  assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  z.next_in = b.start;
  z.avail_in = (uInt)trak_pb_buf_len(&b);
  z.next_out = gz;
  z.avail_out = (uInt)zlen;
  assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
  size_t gz_len = z.total_out;
  deflateEnd(&z);
  trak_processor *p = import_chunks(gz, gz_len, 333);
  assert_int_equal(query_int(p, "SELECT COUNT(*) FROM slice"), 1000);
  trak_processor_free(p);
  /* A gzip stream cut short keeps what inflated and says so. */
  p = import_chunks(gz, gz_len / 2, 100);
  assert_true(query_int(p, "SELECT COUNT(*) FROM slice") > 0);
  assert_int_equal(trak_processor_stat_value(p, "trace_truncated"), 1);
  trak_processor_free(p);
  free(gz);
  trak_pb_buf_free(&b);
}

static void test_compressed_packets(void **state) {
  trak_pb_buf inner;
  trak_pb_buf_init_heap(&inner);
  put_event(&inner, 100, 1, TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN, "zipped");
  put_event(&inner, 150, 1, TRAK_PB_TrackEvent_TYPE_SLICE_END, NULL);
  uLongf zlen = compressBound(trak_pb_buf_len(&inner));
  uint8_t *z = malloc(zlen);
  assert_int_equal(compress(z, &zlen, inner.start, trak_pb_buf_len(&inner)), Z_OK);
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  put_descriptor(&b, 1, "track");
  trak_pb_nested pkt = trak_pb_begin_nested(&b, TRAK_PB_Trace_packet);
  trak_pb_put_bytes(&b, TRAK_PB_TracePacket_compressed_packets, z, zlen);
  trak_pb_end_nested(&b, pkt);
  /* A corrupt compressed payload is counted, not fatal. */
  pkt = trak_pb_begin_nested(&b, TRAK_PB_Trace_packet);
  trak_pb_put_bytes(&b, TRAK_PB_TracePacket_compressed_packets, "not zlib", 8);
  trak_pb_end_nested(&b, pkt);
  trak_processor *p = import_chunks(b.start, trak_pb_buf_len(&b), 5);
  assert_int_equal(query_int(p, "SELECT dur FROM slice WHERE name = 'zipped'"), 50);
  assert_int_equal(trak_processor_stat_value(p, "compressed_packets_errors"), 1);
  trak_processor_free(p);
  free(z);
  trak_pb_buf_free(&inner);
  trak_pb_buf_free(&b);
}

typedef struct diag_log {
  int count;
  uint64_t last_offset;
  char last_stat[64];
} diag_log;

static void on_diag(void *user, uint64_t packet, uint64_t offset, trak_severity severity,
                    const char *stat, const char *message) {
  diag_log *log = user;
  log->count++;
  log->last_offset = offset;
  snprintf(log->last_stat, sizeof log->last_stat, "%s", stat);
}

static void test_truncated_trace_keeps_valid_packets(void **state) {
  trak_pb_buf b;
  build_trace(&b, 10);
  size_t len = trak_pb_buf_len(&b) - 3; /* cut inside the last packet */
  diag_log log = {0};
  trak_processor_options opts = {on_diag, NULL, &log, 0};
  trak_processor *p;
  trak_error err = {0};
  assert_int_equal(trak_processor_new(&opts, &p, &err), 0);
  assert_int_equal(trak_processor_feed(p, b.start, len, &err), 0);
  assert_int_equal(trak_processor_finish(p, &err), 0);
  assert_int_equal(trak_processor_stat_value(p, "trace_truncated"), 1);
  assert_string_equal(log.last_stat, "slice_unterminated");
  assert_int_equal(query_int(p, "SELECT COUNT(*) FROM slice"), 10);
  assert_int_equal(query_int(p, "SELECT dur FROM slice WHERE id = 9"), -1);
  trak_processor_free(p);
  trak_pb_buf_free(&b);
}

/* Every report's message, joined; with TRAK_PROCESSOR_DIAG_LAZY asked for (twice) or not. */
typedef struct diag_texts {
  int lazy, count;
  char all[4096];
} diag_texts;

static void on_diag_text(void *user, uint64_t packet, uint64_t offset, trak_severity severity,
                         const char *stat, const char *message) {
  diag_texts *d = user;
  d->count++;
  if (d->lazy) {
    assert_null(message);
    if (!strcmp(stat, "trace_truncated")) return; /* not read: never made */
    message = trak_processor_diag_message();
    assert_ptr_equal(trak_processor_diag_message(), message); /* made once */
  } else if (!strcmp(stat, "trace_truncated")) {
    return;
  }
  assert_non_null(message);
  size_t n = strlen(d->all);
  snprintf(d->all + n, sizeof d->all - n, "%s: %s\n", stat, message);
}

static void test_lazy_diag_messages(void **state) {
  trak_pb_buf b;
  build_trace(&b, 10);
  size_t len = trak_pb_buf_len(&b) - 3; /* cut inside the last packet: a slice never ends */
  diag_texts d[2] = {{.lazy = 0}, {.lazy = 1}};
  for (int i = 0; i < 2; i++) {
    trak_processor_options opts = {on_diag_text, NULL, &d[i],
                                   d[i].lazy ? TRAK_PROCESSOR_DIAG_LAZY : 0};
    trak_processor *p;
    trak_error err = {0};
    assert_int_equal(trak_processor_new(&opts, &p, &err), 0);
    assert_int_equal(trak_processor_feed(p, b.start, len, &err), 0);
    assert_int_equal(trak_processor_finish(p, &err), 0);
    trak_processor_free(p);
  }
  assert_true(d[0].count >= 2);
  assert_int_equal(d[1].count, d[0].count);
  assert_non_null(strstr(d[0].all, "slice_unterminated: "));
  assert_string_equal(d[1].all, d[0].all);
  assert_null(trak_processor_diag_message()); /* outside a callback */
  trak_pb_buf_free(&b);
}

static void test_corrupt_bytes_stop_with_offset(void **state) {
  trak_pb_buf b;
  build_trace(&b, 4);
  size_t good = trak_pb_buf_len(&b);
  uint8_t garbage[] = {0x0f, 0xff, 0xff}; /* field 1, wire type 7: invalid */
  trak_pb_put_raw(&b, garbage, sizeof garbage);
  put_event(&b, 1000, 1, TRAK_PB_TrackEvent_TYPE_INSTANT, "after garbage");
  diag_log log = {0};
  trak_processor_options opts = {on_diag, NULL, &log, 0};
  trak_processor *p;
  trak_error err = {0};
  assert_int_equal(trak_processor_new(&opts, &p, &err), 0);
  assert_int_equal(trak_processor_feed(p, b.start, trak_pb_buf_len(&b), &err), 0);
  assert_int_equal(trak_processor_finish(p, &err), 0);
  assert_int_equal(trak_processor_stat_value(p, "trace_corrupt"), 1);
  assert_string_equal(log.last_stat, "trace_corrupt");
  assert_int_equal(log.last_offset, good);
  assert_int_equal(query_int(p, "SELECT COUNT(*) FROM slice"), 4);
  trak_processor_free(p);
  trak_pb_buf_free(&b);
}

static void test_typed_rows_and_names(void **state) {
  trak_pb_buf b;
  build_trace(&b, 2);
  trak_processor *p = import_chunks(b.start, trak_pb_buf_len(&b), 1 << 20);
  trak_query *q;
  trak_error err = {0};
  assert_int_equal(trak_query_open(p, "SELECT 42 AS i, 2.5 AS d, 'x' AS s, NULL AS n, x'00ff41'",
                                   &q, NULL, &err),
                   0);
  assert_int_equal(trak_query_column_count(q), 5);
  assert_string_equal(trak_query_column_name(q, 0), "i");
  assert_string_equal(trak_query_column_name(q, 3), "n");
  assert_int_equal(trak_query_next(q, &err), 1);
  assert_int_equal(trak_query_type(q, 0), TRAK_VALUE_INT);
  assert_int_equal(trak_query_int(q, 0), 42);
  assert_int_equal(trak_query_type(q, 1), TRAK_VALUE_DOUBLE);
  assert_true(trak_query_double(q, 1) == 2.5);
  assert_int_equal(trak_query_type(q, 2), TRAK_VALUE_STRING);
  assert_string_equal(trak_query_string(q, 2), "x");
  assert_int_equal(trak_query_type(q, 3), TRAK_VALUE_NULL);
  /* Blobs are their own type and read as bytes, NUL included; NULL has no bytes. */
  assert_int_equal(trak_query_type(q, 4), TRAK_VALUE_BLOB);
  size_t len;
  const unsigned char *v = trak_query_blob(q, 4, &len);
  assert_int_equal(len, 3);
  assert_memory_equal(v, "\x00\xff\x41", 3);
  assert_null(trak_query_blob(q, 3, &len));
  assert_int_equal(len, 0);
  assert_int_equal(trak_query_next(q, &err), 0);
  trak_query_free(q);

  /* Several statements: tail walks through them. */
  const char *tail;
  assert_int_equal(trak_query_open(p, "SELECT 1; SELECT 2;  ", &q, &tail, &err), 0);
  trak_query_free(q);
  assert_int_equal(trak_query_open(p, tail, &q, &tail, &err), 0);
  assert_int_equal(trak_query_next(q, &err), 1);
  assert_int_equal(trak_query_int(q, 0), 2);
  trak_query_free(q);
  assert_int_equal(trak_query_open(p, tail, &q, &tail, &err), 0);
  assert_null(q);
  trak_processor_free(p);
  trak_pb_buf_free(&b);
}

static void test_errors_are_values(void **state) {
  trak_processor *p;
  trak_error err = {0};
  trak_query *q;
  assert_int_equal(trak_processor_new(NULL, &p, &err), 0);
  assert_int_equal(trak_query_open(p, "SELECT 1", &q, NULL, &err), TRAK_ESTATE);
  assert_int_equal(trak_processor_finish(p, &err), 0);
  assert_int_equal(trak_processor_feed(p, "x", 1, &err), TRAK_ESTATE);
  assert_int_equal(trak_query_open(p, "SELEC nonsense", &q, NULL, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "syntax error"));
  assert_int_equal(trak_query_open(p, "SELECT * FROM no_such_table", &q, NULL, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "no_such_table"));
  /* An empty trace still has every table and the placeholder thread and process. */
  assert_int_equal(query_int(p, "SELECT COUNT(*) FROM slice"), 0);
  assert_int_equal(query_int(p, "SELECT COUNT(*) FROM thread WHERE utid = 0 AND tid = 0"), 1);
  assert_int_equal(query_int(p, "SELECT COUNT(*) FROM process WHERE upid = 0 AND pid = 0"), 1);
  trak_processor_free(p);

  assert_int_equal(trak_processor_open_file("/nonexistent/trace.pb", NULL, &p, &err), TRAK_EIO);
  assert_null(p);
  assert_non_null(strstr(err.message, "/nonexistent/trace.pb"));
}

static void test_stats_api(void **state) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  put_event(&b, 5, 77, TRAK_PB_TrackEvent_TYPE_SLICE_END, NULL);
  trak_processor *p = import_chunks(b.start, trak_pb_buf_len(&b), 1 << 20);
  size_t n = trak_processor_stat_count(p);
  assert_true(n > 10);
  int found = 0;
  for (size_t i = 0; i < n; i++) {
    trak_stat st;
    assert_int_equal(trak_processor_stat_get(p, i, &st), 0);
    assert_non_null(st.description);
    if (!strcmp(st.name, "slice_end_unmatched")) {
      found = 1;
      assert_int_equal(st.value, 1);
      assert_int_equal(st.severity, TRAK_SEVERITY_INFO);
    }
  }
  assert_true(found);
  trak_stat st;
  assert_int_equal(trak_processor_stat_get(p, n, &st), TRAK_EINVAL);
  assert_int_equal(trak_processor_stat_value(p, "no such stat"), -1);
  assert_int_equal(query_int(p, "SELECT value FROM stats WHERE name = 'track_event_unknown_track'"),
                   1);
  trak_processor_free(p);
  trak_pb_buf_free(&b);
}

static void test_export_to_sqlite_file(void **state) {
  trak_pb_buf b;
  build_trace(&b, 3);
  trak_processor *p = import_chunks(b.start, trak_pb_buf_len(&b), 1 << 20);
  char path[] = "/tmp/trak_export_XXXXXX";
  tu_temp_file(path);
  trak_error err = {0};
  assert_int_equal(trak_processor_export(p, path, &err), 0);
  trak_processor_free(p);
  sqlite3 *db;
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT COUNT(*), SUM(dur) FROM slice", -1, &st, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  assert_int_equal(sqlite3_column_int(st, 0), 3);
  assert_int_equal(sqlite3_column_int(st, 1), 15);
  sqlite3_finalize(st);
  sqlite3_close(db);
  unlink(path);
  trak_pb_buf_free(&b);
}

static void test_text_trace(void **state) {
  static const char text[] = "packet { track_descriptor { uuid: 1 name: \"t\" } }\n"
                             "packet { timestamp: 5 trusted_packet_sequence_id: 1\n"
                             "  track_event { type: TYPE_INSTANT track_uuid: 1 name: \"i\" } }\n";
  trak_pb_buf probe;
  trak_pb_buf_init_heap(&probe);
  int rc = trak_pbtxt_parse("Trace", text, sizeof text - 1, &probe, NULL);
  trak_pb_buf_free(&probe);
  if (rc == TRAK_EUNSUPPORTED) skip(); /* the text parser lands on main separately */
  trak_processor *p = import_chunks((const uint8_t *)text, sizeof text - 1, 10);
  assert_int_equal(query_int(p, "SELECT ts FROM slice WHERE name = 'i'"), 5);
  trak_processor_free(p);
}

/* An interrupt stops the running statement with an error; the next statement runs. */
static void test_interrupt(void **state) {
  trak_pb_buf b;
  build_trace(&b, 1);
  trak_processor *p = import_chunks(b.start, trak_pb_buf_len(&b), 1 << 20);
  trak_query *q;
  trak_error err = {0};
  trak_processor_interrupt(p); /* idle: no effect on what runs later */
  assert_int_equal(trak_query_open(p,
                                   "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
                                   " SELECT x FROM c",
                                   &q, NULL, &err),
                   0);
  assert_int_equal(trak_query_next(q, &err), 1);
  trak_processor_interrupt(p);
  assert_int_equal(trak_query_next(q, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "interrupt"));
  trak_query_free(q);
  assert_int_equal(trak_query_open(p, "SELECT 7", &q, NULL, &err), 0);
  assert_int_equal(trak_query_next(q, &err), 1);
  assert_int_equal(trak_query_int(q, 0), 7);
  trak_query_free(q);
  trak_processor_free(p);
  trak_pb_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chunk_splits_give_same_tables),
      cmocka_unit_test(test_keep_heap_gives_same_tables),
      cmocka_unit_test(test_gzip_in_chunks),
      cmocka_unit_test(test_compressed_packets),
      cmocka_unit_test(test_truncated_trace_keeps_valid_packets),
      cmocka_unit_test(test_lazy_diag_messages),
      cmocka_unit_test(test_corrupt_bytes_stop_with_offset),
      cmocka_unit_test(test_typed_rows_and_names),
      cmocka_unit_test(test_interrupt),
      cmocka_unit_test(test_errors_are_values),
      cmocka_unit_test(test_stats_api),
      cmocka_unit_test(test_export_to_sqlite_file),
      cmocka_unit_test(test_text_trace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
