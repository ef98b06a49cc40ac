/*
** Helpers shared by the writer tests, on top of testutil.h: a sink that collects a writer's
** bytes in memory, the binary encoding of a text-format trace file, a model comparison that
** prints both models when they differ, and the import of traces into the processor with a
** one-value query. Header-only, like trace_model.h.
*/
#ifndef TRAK_TEST_WRITER_TESTUTIL_H
#define TRAK_TEST_WRITER_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "trace_model.h"
#include "trak/pbtxt.h"
#include "trak/processor.h"
#include "trak/writer.h"

static TM_UNUSED int mem_sink(void *user, const void *data, size_t len) {
  trak_pb_put_raw((trak_pb_buf *)user, data, len);
  return ((trak_pb_buf *)user)->error;
}

/* The binary encoding of a text-format Trace file (malloc'ed); fails the test on error. */
static TM_UNUSED uint8_t *encode_pbtxt_file(const char *path, size_t *len) {
  char *text = tu_read_file(path, NULL);
  trak_pb_buf bin;
  tu_pbtxt_to_binary("Trace", text, &bin);
  free(text);
  return trak_pb_buf_detach(&bin, len);
}

/* Compares two model texts, printing both on a difference. Returns 1 when equal. */
static TM_UNUSED int models_equal(const char *what, const char *expected, const char *actual) {
  if (!strcmp(expected, actual)) return 1;
  fprintf(stderr, "%s: models differ\n--- expected\n%s--- actual\n%s---\n", what, expected, actual);
  return 0;
}

/* The first column of the first row of `sql`, in a static buffer. */
static TM_UNUSED const char *query1(trak_processor *p, const char *sql) {
  static char out[4096];
  trak_query *q;
  trak_error err = {0};
  if (trak_query_open(p, sql, &q, NULL, &err)) fail_msg("%s: %s", sql, err.message);
  assert_int_equal(trak_query_next(q, NULL), 1);
  const char *s = trak_query_string(q, 0);
  snprintf(out, sizeof out, "%s", s ? s : "");
  trak_query_free(q);
  return out;
}

/* Imports a then b, as `cat a b` would give them. */
static TM_UNUSED trak_processor *import_parts(const uint8_t *a, size_t a_len, const uint8_t *b,
                                              size_t b_len) {
  trak_processor *p;
  trak_error err = {0};
  assert_int_equal(trak_processor_new(NULL, &p, NULL), 0);
  uint8_t *both = malloc(a_len + b_len);
  memcpy(both, a, a_len);
  if (b_len) memcpy(both + a_len, b, b_len);
  if (trak_processor_feed(p, both, a_len + b_len, &err) || trak_processor_finish(p, &err))
    fail_msg("import: %s", err.message);
  free(both);
  return p;
}

#endif /* TRAK_TEST_WRITER_TESTUTIL_H */
