/*
** Helpers shared by the writer tests, on top of testutil.h: a sink that collects a writer's
** bytes in memory, the binary encoding of a text-format trace file, and a model comparison
** that prints both models when they differ. Header-only, like trace_model.h.
*/
#ifndef TRAK_TEST_WRITER_TESTUTIL_H
#define TRAK_TEST_WRITER_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "trace_model.h"
#include "trak/pbtxt.h"
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

#endif /* TRAK_TEST_WRITER_TESTUTIL_H */
