/*
** libFuzzer target for the tabular event converter (CSV and JSON Lines readers, track paths,
** time parsing, row conversion) and the writer behind it. The first byte picks the format and
** keep_going; whatever the input, conversion must not crash and the trace written must be
** well-formed protobuf.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  trak_events_options opts = {.format = (trak_events_format)(data[0] % 3),
                              .keep_going = data[0] & 4};
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  if (trak_writer_open_callback(&w, sink, &out, NULL)) return 0;
  trak_events_result res;
  trak_error err;
  trak_events_convert(w, (const char *)data + 1, size - 1, &opts, &res, &err);
  if (res.converted + res.bad_rows > res.rows) abort();
  if (trak_writer_close(w, NULL, NULL)) abort();
  if (out.start) {
    trak_pb_decoder d;
    trak_pb_decoder_init(&d, out.start, trak_pb_buf_len(&out));
    walk(&d, 0);
  }
  trak_pb_buf_free(&out);
  return 0;
}
