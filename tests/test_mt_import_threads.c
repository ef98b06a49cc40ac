/*
** The import on two cores gives the tables of the import on one: every binary trace under
** tests/data (the goldens' text traces encoded to binary) and generated track-event traces,
** plain and gzip-compressed, and generated Linux scheduling traces (typed and compact_sched
** ftrace bundles), are imported with TRAK_IMPORT_THREADS=1 and =2 and exported to
** SQLite files, which must be equal byte for byte. Under ThreadSanitizer (the label
** "concurrency") this also checks that the decoding thread shares no unguarded state.
*/
#define _GNU_SOURCE /* nftw */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../bench/gen_sched.h"
#include "../bench/gen_track_events.h"
#include "testutil.h"
#include "trak/pbtxt.h"
#include "trak/processor.h"

static int compared, skipped;

/* Imports `path` with `threads` threads and exports its tables to `db`. Returns the import's
** code (a malformed trace still imports what it can and exports). */
static int import_export(const char *path, const char *threads, const char *db) {
  setenv("TRAK_IMPORT_THREADS", threads, 1);
  trak_processor *p;
  trak_error err = {0};
  int rc = trak_processor_open_file(path, NULL, &p, &err);
  if (rc) return rc;
  rc = trak_processor_export(p, db, &err);
  trak_processor_free(p);
  return rc;
}

/* Imports `path` both ways and asserts the same outcome and byte-identical tables. */
static void compare_both(const char *path) {
  char db1[] = "/tmp/trak_mt_import_1_XXXXXX", db2[] = "/tmp/trak_mt_import_2_XXXXXX";
  tu_temp_file(db1);
  tu_temp_file(db2);
  int rc1 = import_export(path, "1", db1), rc2 = import_export(path, "2", db2);
  if (rc1 != rc2) fail_msg("%s: import returns %d with one thread, %d with two", path, rc1, rc2);
  if (!rc1) {
    size_t n1, n2;
    char *a = tu_read_file(db1, &n1), *b = tu_read_file(db2, &n2);
    if (n1 != n2 || memcmp(a, b, n1))
      fail_msg("%s: the tables differ between one and two import threads", path);
    free(a);
    free(b);
    compared++;
  }
  unlink(db1);
  unlink(db2);
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
  if (ends_with(path, ".pb") || ends_with(path, ".pftrace") || ends_with(path, ".perfetto-trace"))
    compare_both(path);
  else if (ends_with(path, ".pbtxt"))
    compare_text(path);
  return 0;
}

static void test_every_trace_of_the_tests(void **state) {
  (void)state;
  compared = skipped = 0;
  assert_int_equal(nftw(tu_source_path("tests/data"), visit, 16, FTW_PHYS), 0);
  printf("compared %d traces, skipped %d text traces trak's parser refuses\n", compared, skipped);
  assert_true(compared >= 100);
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

/* Generated traces of several sizes: packets straddle the pieces the decoding thread takes
** and the 1 MiB reads; one is cut in the middle of a packet. */
static void test_generated_traces(void **state) {
  (void)state;
  static const uint64_t events[] = {1000, 150000};
  for (size_t i = 0; i < sizeof events / sizeof *events; i++) {
    char pb[] = "/tmp/trak_mt_import_gen_XXXXXX", gz[] = "/tmp/trak_mt_import_gz_XXXXXX";
    tu_temp_file(pb);
    tu_temp_file(gz);
    uint64_t size = generate(pb, events[i]);
    compare_both(pb);
    gzip_file(pb, gz);
    compare_both(gz);
    assert_int_equal(truncate(pb, (off_t)(size - size / 3)), 0);
    compare_both(pb);
    unlink(pb);
    unlink(gz);
  }
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
    compare_both(pb);
    assert_int_equal(compared, 1);
    unlink(pb);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_trace_of_the_tests),
      cmocka_unit_test(test_generated_traces),
      cmocka_unit_test(test_generated_sched_traces),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  unsetenv("TRAK_IMPORT_THREADS");
  return rc;
}
