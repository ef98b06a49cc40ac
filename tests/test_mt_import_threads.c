/*
** The import on two cores gives the tables of the import on one: every binary trace under
** tests/data (the goldens' text traces encoded to binary) and generated track-event traces,
** plain and gzip-compressed, and generated Linux scheduling traces (typed and compact_sched
** ftrace bundles), are imported with TRAK_IMPORT_THREADS=1 and =2, the file read through a
** mapping and with fread (TRAK_IMPORT_MMAP=0), and exported to SQLite files, which must be
** equal byte for byte; the tests/data traces and one generated JSON trace also with
** TRAK_SPLIT_ALWAYS=1, which splits the parse phase's sorts and its end's args relayout between
** the two threads at any size. Under ThreadSanitizer (the label "concurrency") this also checks
** that the decoding thread and those splits share no unguarded state.
*/
#define _GNU_SOURCE /* nftw */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../bench/gen_json_events.h"
#include "../bench/gen_sched.h"
#include "../bench/gen_track_events.h"
#include "testutil.h"
#include "trak/pbtxt.h"
#include "trak/processor.h"

static int compared, skipped;

/* Imports `path` with `threads` threads, the file read through a mapping or with fread
** (`mmap` "1" or "0": read/file_map.h), and exports its tables and import log to `db`. */
static int import_export(const char *path, const char *threads, const char *mmap, const char *db) {
  setenv("TRAK_IMPORT_THREADS", threads, 1);
  setenv("TRAK_IMPORT_MMAP", mmap, 1);
  int rc = tu_import_export(path, db);
  unsetenv("TRAK_IMPORT_MMAP");
  return rc;
}

/* Imports `path` with one thread (`mmap1`: its file mapped or read with fread) and with two
** (`mmap2`) and asserts the same outcome and byte-identical tables. */
static void compare_reads(const char *path, const char *mmap1, const char *mmap2) {
  char db1[] = "/tmp/trak_mt_import_1_XXXXXX", db2[] = "/tmp/trak_mt_import_2_XXXXXX";
  tu_temp_file(db1);
  tu_temp_file(db2);
  int rc1 = import_export(path, "1", mmap1, db1), rc2 = import_export(path, "2", mmap2, db2);
  if (rc1 != rc2) fail_msg("%s: import returns %d with one thread, %d with two", path, rc1, rc2);
  if (!rc1) {
    size_t n1, n2;
    char *a = tu_read_file(db1, &n1), *b = tu_read_file(db2, &n2);
    if (n1 != n2 || memcmp(a, b, n1))
      fail_msg("%s: the tables differ between one thread (mmap %s) and two (mmap %s)", path, mmap1,
               mmap2);
    free(a);
    free(b);
    compared++;
  }
  unlink(db1);
  unlink(db2);
}

/* One thread reading with fread against two reading the mapped file in place (a plain binary
** trace framed in place, JSON read in place: the batches cut otherwise). */
static void compare_both(const char *path) {
  compare_reads(path, "0", "1");
}

/* Both reads with both thread counts: compare_both, and the other two pairs. */
static void compare_all_reads(const char *path) {
  compare_both(path);
  compare_reads(path, "1", "0");
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* A text trace, encoded to binary in a temporary file (the decoding thread frames binary
** traces only), then compared; one trak's parser does not take is skipped and counted. */
static void compare_text(const char *path) {
  size_t len;
  char *text = tu_read_file(path, &len);
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_error err = {0};
  if (trak_pbtxt_parse("Trace", text, len, &out, &err)) {
    skipped++;
  } else {
    char bin[] = "/tmp/trak_mt_import_pb_XXXXXX";
    tu_write_temp(bin, out.start, trak_pb_buf_len(&out));
    compare_both(bin);
    unlink(bin);
  }
  trak_pb_buf_free(&out);
  free(text);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st, (void)ftw;
  if (type != FTW_F) return 0;
  if (ends_with(path, ".pb") || ends_with(path, ".pftrace") || ends_with(path, ".perfetto-trace") ||
      ends_with(path, ".json"))
    compare_both(path);
  else if (ends_with(path, ".pbtxt"))
    compare_text(path);
  return 0;
}

static void test_every_trace_of_the_tests(void **state) {
  (void)state;
  compared = skipped = 0;
  /* the parse phase's and its end's work split between the threads at any size (two_threads.h) */
  setenv("TRAK_SPLIT_ALWAYS", "1", 1);
  assert_int_equal(nftw(tu_source_path("tests/data"), visit, 16, FTW_PHYS), 0);
  unsetenv("TRAK_SPLIT_ALWAYS");
  printf("compared %d traces, skipped %d text traces trak's parser refuses\n", compared, skipped);
  assert_true(compared >= 130); /* 109 binary and text, 31 JSON */
}

/* Copies `path` gzip-compressed to `gz`. */
static void gzip_file(const char *path, const char *gz) {
  size_t len;
  char *data = tu_read_file(path, &len);
  gzFile z = gzopen(gz, "wb1");
  assert_non_null(z);
  assert_int_equal(gzwrite(z, data, (unsigned)len), (int)len);
  assert_int_equal(gzclose(z), Z_OK);
  free(data);
}

/* Writes `n` bytes of `data` to `path`, with fopen `mode` ("ab" appends). */
static void write_bytes(const char *path, const void *data, size_t n, const char *mode) {
  FILE *f = fopen(path, mode);
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

/* The gzip stream's own problems, inflated on the decoding thread: the same tables, stats and
** import log as with one thread. A cut stream, trailing data, a second member, a corrupt byte. */
static void compare_gzip_variants(const char *gz) {
  size_t len;
  char *z = tu_read_file(gz, &len);
  char path[] = "/tmp/trak_mt_import_gzv_XXXXXX";
  tu_temp_file(path);
  write_bytes(path, z, len - len / 3, "wb"); /* ends inside the stream */
  compare_both(path);
  write_bytes(path, z, len, "wb");
  write_bytes(path, "trailing garbage", 16, "ab");
  compare_both(path);
  write_bytes(path, z, len, "wb"); /* cat a.gz a.gz */
  write_bytes(path, z, len, "ab");
  compare_both(path);
  z[len / 2] ^= 0x5a; /* inflate fails there (or the packets it yields are wrong) */
  write_bytes(path, z, len, "wb");
  compare_both(path);
  unlink(path);
  free(z);
}

/* Generated traces of several sizes: packets straddle the pieces the decoding thread takes
** and the 1 MiB reads; one is cut in the middle of a packet. Compressed, they are inflated on
** the decoding thread (cut where one thread cuts the inflated bytes). */
static void test_generated_traces(void **state) {
  (void)state;
  static const uint64_t events[] = {1000, 150000};
  for (size_t i = 0; i < sizeof events / sizeof *events; i++) {
    char pb[] = "/tmp/trak_mt_import_gen_XXXXXX", gz[] = "/tmp/trak_mt_import_gz_XXXXXX";
    tu_temp_file(pb);
    tu_temp_file(gz);
    uint64_t size = generate(pb, events[i]);
    compare_all_reads(pb);
    gzip_file(pb, gz);
    compare_both(gz);
    compare_gzip_variants(gz);
    /* past the first 1 MiB (framed in place from the mapped file): a packet over the size
    ** limit that the file ends in, then bytes of an invalid wire type (framing stops there) */
    static const char too_large[] = {0x0a, (char)0x81, (char)0x80, (char)0x80, (char)0x81, 1, 2};
    write_bytes(pb, too_large, sizeof too_large, "ab");
    compare_all_reads(pb);
    assert_int_equal(truncate(pb, (off_t)size), 0);
    write_bytes(pb, "\x0f\x01\x02", 3, "ab");
    compare_all_reads(pb);
    assert_int_equal(truncate(pb, (off_t)(size - size / 3)), 0);
    compare_all_reads(pb);
    unlink(pb);
    unlink(gz);
  }
}

/* Writes `text` to `path` after `head` bytes of `src` (NULL: none), then the rest of `src` from
** `from` (SIZE_MAX: none). */
static void splice_file(const char *path, const char *src, size_t len, size_t head,
                        const char *text, size_t from) {
  write_bytes(path, src, head, "wb");
  write_bytes(path, text, strlen(text), "ab");
  if (from < len) write_bytes(path, src + from, len - from, "ab");
}

/* The start of the event that holds byte `at` of a generated JSON trace (one event a line). */
static size_t line_start(const char *s, size_t at) {
  while (at && s[at - 1] != '\n')
    at--;
  return at;
}

/* A generated JSON trace past the 4 MiB from which the import reads on its second thread, and
** its variants: events cut by the pieces the decoding thread takes and by the 1 MiB reads, a
** trace cut in the middle of an event, a syntax error, an event nested past the depth limit,
** the top-level members the reader hands over (metadata, systemTraceEvents, displayTimeUnit),
** and the trace gzip-compressed (inflated and read on the decoding thread after its first 64 KiB)
** with the gzip stream's own problems. The same tables, stats and import log with one thread
** and with two, reading the file in place or with fread. */
static void test_generated_json_traces(void **state) {
  (void)state;
  char js[] = "/tmp/trak_mt_import_json_XXXXXX", v[] = "/tmp/trak_mt_import_jsonv_XXXXXX";
  tu_temp_file(js);
  tu_temp_file(v);
  assert_true(gen_json_events(js, 5000000) > 50000);
  compared = 0;
  compare_all_reads(js);
  setenv("TRAK_SPLIT_ALWAYS", "1", 1); /* the splits of two_threads.h, below their sizes */
  compare_both(js);
  unsetenv("TRAK_SPLIT_ALWAYS");
  size_t len;
  char *t = tu_read_file(js, &len);
  write_bytes(v, t, len - len / 3, "wb"); /* ends inside an event */
  compare_both(v);
  size_t mid = line_start(t, len / 2), late = line_start(t, len - len / 5);
  splice_file(v, t, len, mid, "{\"ph\":\"B\",\"ts\":1,,}\n", SIZE_MAX); /* a syntax error */
  write_bytes(v, t + mid, len - mid, "ab");
  compare_both(v);
  char deep[400] = "{\"ph\":\"X\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":1,\"args\":";
  for (int i = 0; i < 70; i++)
    strcat(deep, "[");
  for (int i = 0; i < 70; i++)
    strcat(deep, "]");
  strcat(deep, "},\n");
  splice_file(v, t, len, mid, deep, mid); /* skipped past the depth limit, the rest imported */
  compare_both(v);
  /* the top-level members after the events: metadata, systrace text, a viewer hint */
  size_t end = len;
  while (end && t[end - 1] != ']')
    end--;
  splice_file(v, t, len, end,
              ",\"displayTimeUnit\":\"ms\",\"metadata\":{\"cpu\":\"x86\",\"n\":3},"
              "\"systemTraceEvents\":\"# tracer: nop\\n  app-12 ( 12) [000] .... 5.000000: "
              "sched_wakeup: comm=a pid=13 prio=120 target_cpu=000\\n\"}\n",
              SIZE_MAX);
  compare_both(v);
  splice_file(v, t, len, late, "{\"ph\":\"B\",\"name\":\"a\\u00e9\",\"ts\":\"7\"}", late);
  compare_both(v); /* an escaped name, a ts as a string, no comma: an error late in the file */
  char gz[] = "/tmp/trak_mt_import_jsongz_XXXXXX";
  tu_temp_file(gz);
  gzip_file(js, gz);
  compare_both(gz);
  compare_gzip_variants(gz);
  assert_int_equal(compared, 13); /* the first trace compared both ways, and split */
  unlink(gz);
  unlink(v);
  unlink(js);
  free(t);
}

/* Generated scheduling traces, typed and compact_sched, each past the 4 MiB from which the
** import uses its second thread: the ftrace bundles' events and their sort give the same tables
** both ways. */
static void test_generated_sched_traces(void **state) {
  (void)state;
  static const struct {
    long events;
    int compact;
  } traces[] = {{110000, 0}, {520000, 1}};
  for (size_t i = 0; i < sizeof traces / sizeof *traces; i++) {
    char pb[] = "/tmp/trak_mt_import_sched_XXXXXX";
    tu_temp_file(pb);
    long size = gen_sched(pb, traces[i].events, traces[i].compact);
    assert_true(size > (4l << 20));
    compared = 0;
    compare_all_reads(pb);
    assert_int_equal(compared, 2);
    unlink(pb);
  }
}

/* One TrackEvent packet of sequence `seq` at `ts`: `fields` writes the event's fields. */
static void seq_event(trak_pb_buf *b, uint32_t seq, int64_t ts,
                      void (*fields)(trak_pb_buf *, int), int variant) {
  trak_pb_nested pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp, (uint64_t)ts);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, seq);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_sequence_flags,
                     TRAK_PB_TracePacket_SEQ_NEEDS_INCREMENTAL_STATE);
  trak_pb_nested ev = trak_pb_begin_nested(b, TRAK_PB_TracePacket_track_event);
  fields(b, variant);
  trak_pb_end_nested(b, ev);
  trak_pb_end_nested(b, pkt);
}

/* seq_event of sequence 1. */
static void encoded_event(trak_pb_buf *b, int64_t ts, void (*fields)(trak_pb_buf *, int),
                          int variant) {
  seq_event(b, 1, ts, fields, variant);
}

static void annotation(trak_pb_buf *b, uint64_t name_iid, int64_t v) {
  trak_pb_nested a = trak_pb_begin_nested(b, TRAK_PB_TrackEvent_debug_annotations);
  trak_pb_put_varint(b, TRAK_PB_DebugAnnotation_name_iid, name_iid);
  trak_pb_put_int64(b, TRAK_PB_DebugAnnotation_int_value, v);
  trak_pb_end_nested(b, a);
}

/* The fields of begin `variant` (0-15): the common encodings the decoding thread decodes and
** the uncommon ones it leaves to the importer's thread, which must make the same rows. */
static void begin_fields(trak_pb_buf *b, int variant) {
  uint8_t raw[16];
  trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN);
  trak_pb_put_varint(b, TRAK_PB_TrackEvent_name_iid, 1 + (uint64_t)variant % 5);
  switch (variant) {
  case 0: /* two category iids */
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_category_iids, 1);
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_category_iids, 2);
    break;
  case 1: /* packed category iids */
    raw[0] = 2, raw[1] = 3;
    trak_pb_put_bytes(b, TRAK_PB_TrackEvent_category_iids, raw, 2);
    break;
  case 2: /* four annotations, then five */
  case 3:
    for (int i = 0; i < variant + 2; i++)
      annotation(b, 1 + (uint64_t)i % 2, i);
    break;
  case 4: /* an inline name after name_iid, inline categories */
    trak_pb_put_string(b, TRAK_PB_TrackEvent_name, "inline");
    trak_pb_put_string(b, TRAK_PB_TrackEvent_categories, "c1");
    trak_pb_put_string(b, TRAK_PB_TrackEvent_categories, "c2");
    break;
  case 5: /* an empty inline name */
    trak_pb_put_string(b, TRAK_PB_TrackEvent_name, "");
    break;
  case 6: /* the type again as fixed64 */
    trak_pb_put_fixed64(b, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_INSTANT);
    break;
  case 7: /* track_uuid twice: the last one wins */
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_track_uuid, 1000);
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_track_uuid, 5000);
    break;
  case 8: /* name_iid as a length-delimited field */
    trak_pb_put_bytes(b, TRAK_PB_TrackEvent_name_iid, "ab", 2);
    break;
  case 9: /* an annotation as a varint (not read) and a field trak does not know */
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_debug_annotations, 7);
    trak_pb_put_varint(b, 9999, 1);
    break;
  case 10: /* a flow */
    trak_pb_put_fixed64(b, TRAK_PB_TrackEvent_flow_ids, 77);
    break;
  case 11: { /* bytes that do not decode: a name longer than what is left */
    uint8_t *p = raw;
    p = trak_pb_write_tag(p, TRAK_PB_TrackEvent_name, TRAK_PB_WIRE_LEN);
    *p++ = 50, *p++ = 'x';
    trak_pb_put_raw(b, raw, (size_t)(p - raw));
    break;
  }
  case 12: /* one category iid and an annotation: the common event */
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_category_iids, 4);
    annotation(b, 2, 12);
    break;
  default: /* legacy timestamps */
    trak_pb_put_int64(b, TRAK_PB_TrackEvent_timestamp_delta_us, 1);
    break;
  }
}

/* A counter value as int, as double, as both (the last one wins) and as a double in a varint. */
static void counter_fields(trak_pb_buf *b, int variant) {
  trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_COUNTER);
  trak_pb_put_varint(b, TRAK_PB_TrackEvent_track_uuid, 2000);
  if (variant != 1) trak_pb_put_int64(b, TRAK_PB_TrackEvent_counter_value, -5 - variant);
  if (variant == 1 || variant == 2)
    trak_pb_put_double(b, TRAK_PB_TrackEvent_double_counter_value, 2.5 * variant);
  if (variant == 3) trak_pb_put_varint(b, TRAK_PB_TrackEvent_double_counter_value, 3);
}

static void end_fields(trak_pb_buf *b, int variant) {
  (void)variant;
  trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_SLICE_END);
}

/* A trace in `b` (a heap buffer, made here) of the generated traces' descriptors and sequence
** 1's first packet, for the events a test then adds. */
static void events_trace_start(trak_pb_buf *b) {
  trak_pb_buf_init_heap(b);
  thread_gen th[THREADS];
  for (int t = 0; t < THREADS; t++)
    th[t] = (thread_gen){(uint32_t)(t + 1), 5000 + (uint64_t)t, 0, 0, 1, 0};
  descriptors(b, th);
  sequence_start(b, &th[0]);
}

/* Writes `b` to the file `pb` and frees it; the import of `pb` with one thread and with two
** must give the same tables. Removes `pb`. */
static void events_trace_compare(trak_pb_buf *b, const char *pb) {
  write_bytes(pb, b->start, trak_pb_buf_len(b), "wb");
  trak_pb_buf_free(b);
  compared = 0;
  compare_both(pb);
  assert_int_equal(compared, 1);
  unlink(pb);
}

/* TrackEvents in every encoding the decoding thread decodes for the importer's thread, or leaves
** to it (more categories or annotations than it keeps, packed lists, other wire types, repeated
** fields, inline names, unknown fields, bytes that do not decode): the same tables and import
** log with one thread and with two. */
static void test_event_encodings(void **state) {
  (void)state;
  char pb[] = "/tmp/trak_mt_import_enc_XXXXXX";
  tu_temp_file(pb);
  trak_pb_buf b;
  events_trace_start(&b);
  int64_t ts = 1000;
  for (int round = 0; round < 3; round++) {
    for (int v = 0; v < 14; v++) {
      encoded_event(&b, ts += 10, begin_fields, v);
      encoded_event(&b, ts += 10, counter_fields, v % 4);
      encoded_event(&b, ts += 10, end_fields, v);
    }
  }
  events_trace_compare(&b, pb);
}

/* Sequence 2's first packet: its incremental state cleared and a legacy thread_descriptor,
** whose thread's track is the track of the sequence's events without a track_uuid. */
static void legacy_sequence_start(trak_pb_buf *b) {
  trak_pb_nested pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, 2);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_sequence_flags,
                     TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED);
  trak_pb_nested td = trak_pb_begin_nested(b, TRAK_PB_TracePacket_thread_descriptor);
  trak_pb_put_int32(b, TRAK_PB_ThreadDescriptor_pid, 100);
  trak_pb_put_int32(b, TRAK_PB_ThreadDescriptor_tid, 1001);
  trak_pb_end_nested(b, td);
  trak_pb_end_nested(b, pkt);
}

/* Events of the common encoding (which the decoding thread decodes) that its importer's fast
** path must still leave to the generic one (variant 0-7): an event on another track than the
** sequence's thread's (a passthrough thread), no type, TYPE_STATE off a state track, an unknown
** type, an explicit track_uuid 0, a counter value without a value. */
static void fallback_fields(trak_pb_buf *b, int variant) {
  static const uint64_t types[] = {
      TRAK_PB_TrackEvent_TYPE_INSTANT, TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN,
      TRAK_PB_TrackEvent_TYPE_COUNTER, 0,
      TRAK_PB_TrackEvent_TYPE_STATE,   99,
      TRAK_PB_TrackEvent_TYPE_INSTANT, TRAK_PB_TrackEvent_TYPE_SLICE_END};
  static const uint64_t tracks[] = {0, 1000, 2000, 0, 1000, 0, 0, 1000};
  trak_pb_put_string(b, TRAK_PB_TrackEvent_name, variant % 2 ? "inline" : "other");
  if (types[variant]) trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, types[variant]);
  if (tracks[variant] || variant == 6)
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_track_uuid, tracks[variant]);
  if (variant == 0) annotation(b, 1, 5);
}

/* The fast path's fallbacks (fallback_fields) beside sequence 1's common events: the same
** tables and import log with one thread and with two. */
static void test_event_fallbacks(void **state) {
  (void)state;
  char pb[] = "/tmp/trak_mt_import_fb_XXXXXX";
  tu_temp_file(pb);
  trak_pb_buf b;
  events_trace_start(&b);
  legacy_sequence_start(&b);
  int64_t ts = 1000;
  for (int round = 0; round < 2; round++) {
    for (int v = 0; v < 8; v++) {
      seq_event(&b, 2, ts += 10, fallback_fields, v);
      encoded_event(&b, ts += 10, begin_fields, 12);
      encoded_event(&b, ts += 10, end_fields, 0);
    }
  }
  events_trace_compare(&b, pb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_trace_of_the_tests), cmocka_unit_test(test_generated_traces),
      cmocka_unit_test(test_generated_sched_traces),   cmocka_unit_test(test_generated_json_traces),
      cmocka_unit_test(test_event_encodings),          cmocka_unit_test(test_event_fallbacks),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  unsetenv("TRAK_IMPORT_THREADS");
  return rc;
}
