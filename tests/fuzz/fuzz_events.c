/*
** libFuzzer target for the tabular event converter (CSV and JSON Lines readers, track paths,
** time parsing, row conversion) and the writer behind it. The first byte picks the format,
** keep_going and a piece size; whatever the input, conversion must not crash, the trace written
** must be well-formed protobuf, and the same text streamed in pieces of that size
** (trak_events_convert_stream) must convert to the same bytes with the same outcome.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trak/pb.h"
#include "trak/writer.h"

static int sink(void *user, const void *data, size_t len) {
  trak_pb_put_raw((trak_pb_buf *)user, data, len);
  return ((trak_pb_buf *)user)->error;
}

/* Walks every field of a message, recursing into what could be nested. */
static void walk(trak_pb_decoder *d, int depth) {
  trak_pb_field f;
  int rc;
  while ((rc = trak_pb_decoder_next(d, &f)) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN || depth > 6) continue;
    trak_pb_decoder child;
    if (depth < 2 && !trak_pb_decoder_init_nested(&child, d, &f)) walk(&child, depth + 1);
  }
  if (rc < 0) abort();
}

/* Hands out the input `piece` bytes at a time. */
typedef struct pieces {
  const uint8_t *data;
  size_t len, piece;
} pieces;

static int64_t read_pieces(void *user, void *buf, size_t cap, trak_error *err) {
  (void)err;
  pieces *p = user;
  size_t n = p->len < p->piece ? p->len : p->piece;
  if (n > cap) n = cap;
  memcpy(buf, p->data, n);
  p->data += n;
  p->len -= n;
  return (int64_t)n;
}

/* Converts the text whole (piece 0) or streamed; fills `out` (initialised here) and `res`. */
static int convert(const uint8_t *text, size_t len, const trak_events_options *opts, size_t piece,
                   trak_pb_buf *out, trak_events_result *res, trak_error *err) {
  trak_pb_buf_init_heap(out);
  trak_writer *w;
  if (trak_writer_open_callback(&w, sink, out, NULL)) abort();
  trak_writer_set_seed(w, 1);
  pieces p = {text, len, piece};
  int rc = piece ? trak_events_convert_stream(w, read_pieces, &p, opts, res, err)
                 : trak_events_convert(w, (const char *)text, len, opts, res, err);
  if (res->converted + res->bad_rows > res->rows) abort();
  if (trak_writer_close(w, NULL, NULL)) abort();
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const size_t PIECES[] = {1, 2, 3, 17, 4096, 1, 7, 256};
  if (size < 1) return 0;
  trak_events_options opts = {.format = (trak_events_format)(data[0] % 3),
                              .keep_going = data[0] & 4};
  trak_pb_buf out, streamed;
  trak_events_result res, sres;
  trak_error err = {0}, serr = {0};
  int rc = convert(data + 1, size - 1, &opts, 0, &out, &res, &err);
  if (out.start) {
    trak_pb_decoder d;
    trak_pb_decoder_init(&d, out.start, trak_pb_buf_len(&out));
    walk(&d, 0);
  }
  /* Streams decide an AUTO format from their first 64 KiB: compare below that. */
  if (size - 1 < (64u << 10)) {
    int src = convert(data + 1, size - 1, &opts, PIECES[data[0] >> 5], &streamed, &sres, &serr);
    if (src != rc || memcmp(&res, &sres, sizeof res) || strcmp(err.message, serr.message) ||
        trak_pb_buf_len(&out) != trak_pb_buf_len(&streamed) ||
        (trak_pb_buf_len(&out) && memcmp(out.start, streamed.start, trak_pb_buf_len(&out))))
      abort();
    trak_pb_buf_free(&streamed);
  }
  trak_pb_buf_free(&out);
  return 0;
}
