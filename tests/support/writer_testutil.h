/*
** Helpers shared by the writer tests: a writer whose bytes land in memory, the binary encoding
** of a text-format trace (trak_pbtxt_parse), and
** a model comparison that prints both models when they differ. Header-only, like trace_model.h.
*/
#ifndef TRAK_TEST_WRITER_TESTUTIL_H
#define TRAK_TEST_WRITER_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_model.h"
#include "trak/pbtxt.h"
#include "trak/writer.h"

static TM_UNUSED int mem_sink(void *user, const void *data, size_t len) {
  trak_pb_put_raw((trak_pb_buf *)user, data, len);
  return ((trak_pb_buf *)user)->error;
}

/* Reads a whole file (malloc'ed, NUL-terminated) or returns NULL. */
static TM_UNUSED char *read_whole(const char *path, size_t *len) {
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  fclose(f);
  s[got] = 0;
  *len = got;
  return s;
}

/* $TRAK_SOURCE_DIR/<rel> into `out`. */
static TM_UNUSED void source_path(char *out, size_t size, const char *rel) {
  const char *dir = getenv("TRAK_SOURCE_DIR");
  snprintf(out, size, "%s/%s", dir ? dir : ".", rel);
}

/* The binary encoding of a text-format Trace file (malloc'ed), or NULL. */
static TM_UNUSED uint8_t *encode_pbtxt_file(const char *path, size_t *len) {
  size_t tlen;
  char *text = read_whole(path, &tlen);
  if (!text) return NULL;
  trak_pb_buf bin;
  trak_pb_buf_init_heap(&bin);
  trak_error err = {0};
  int rc = trak_pbtxt_parse("Trace", text, tlen, &bin, &err);
  free(text);
  if (rc == 0) return trak_pb_buf_detach(&bin, len);
  fprintf(stderr, "%s: %s\n", path, err.message);
  trak_pb_buf_free(&bin);
  return NULL;
}

/* Compares two model texts, printing both on a difference. Returns 1 when equal. */
static TM_UNUSED int models_equal(const char *what, const char *expected, const char *actual) {
  if (!strcmp(expected, actual)) return 1;
  fprintf(stderr, "%s: models differ\n--- expected\n%s--- actual\n%s---\n", what, expected, actual);
  return 0;
}

#endif /* TRAK_TEST_WRITER_TESTUTIL_H */
