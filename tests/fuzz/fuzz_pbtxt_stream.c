/*
** libFuzzer target for the cutter of streamed text traces (src/processor/read/text_split.c): the
** input is fed to a cutter in three chunks split where its first bytes say, each piece is
** parsed with trak_pbtxt_parse_at at its position, and the result must be the one of
** trak_pbtxt_parse over the whole input: the same binary when it parses, the same error
** message (line, column, token) when it does not. One field per piece and small batches.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/read/text_split.h"
#include "trak/pbtxt.h"

typedef struct run {
  trak_pb_buf out;
  trak_error err;
  int rc;
} run;

static int on_piece(void *ctx, const char *text, size_t len, trak_text_pos at) {
  run *r = ctx;
  r->rc = trak_pbtxt_parse_at("Trace", text, len, (int)at.line, (int)at.column, &r->out, &r->err);
  return r->rc;
}

static void check(const uint8_t *data, size_t size, size_t a, size_t b, size_t batch,
                  const run *whole) {
  run r = {.rc = 0};
  trak_pb_buf_init_heap(&r.out);
  trak_text_split s;
  trak__text_split_init(&s, (trak_text_pos){0, 1, 1}, batch);
  const char *text = (const char *)data;
  trak__text_split_feed(&s, text, a, on_piece, &r);
  trak__text_split_feed(&s, text + a, b - a, on_piece, &r);
  trak__text_split_feed(&s, text + b, size - b, on_piece, &r);
  trak__text_split_finish(&s, on_piece, &r);
  trak__text_split_free(&s);
  if (!!r.rc != !!whole->rc) abort();
  if (whole->rc) {
    if (strcmp(r.err.message, whole->err.message)) {
      fprintf(stderr, "pieces (batch %zu): %s\nwhole: %s\n", batch, r.err.message,
              whole->err.message);
      abort();
    }
  } else {
    size_t n = trak_pb_buf_len(&r.out);
    if (n != trak_pb_buf_len(&whole->out) || (n && memcmp(r.out.start, whole->out.start, n)))
      abort();
  }
  trak_pb_buf_free(&r.out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t a = size ? data[0] % (size + 1) : 0;
  size_t b = size > 1 ? a + data[1] % (size - a + 1) : a;
  run whole = {.rc = 0};
  trak_pb_buf_init_heap(&whole.out);
  whole.rc = trak_pbtxt_parse("Trace", (const char *)data, size, &whole.out, &whole.err);
  check(data, size, a, b, 0, &whole);
  check(data, size, a, b, 64, &whole);
  trak_pb_buf_free(&whole.out);
  return 0;
}
