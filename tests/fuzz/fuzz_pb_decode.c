/*
** libFuzzer target for the protobuf decoder. Walks arbitrary bytes two ways: schema-free,
** recursing into every length-delimited field that decodes as a message (up to the decoder's
** depth limit), and schema-driven, printing them as a perfetto.protos.Trace.
*/
#include <stdint.h>
#include <stdlib.h>

#include "trak/pb.h"
#include "trak/pbtxt.h"

static void walk(trak_pb_decoder *dec) {
  trak_pb_field f;
  while (trak_pb_decoder_next(dec, &f) == 1) {
    if (f.wire_type == TRAK_PB_WIRE_LEN) {
      trak_pb_decoder child;
      if (trak_pb_decoder_init_nested(&child, dec, &f) == 0) walk(&child);
      trak_pb_packed it;
      uint64_t v;
      trak_pb_packed_init(&it, &f, TRAK_PB_WIRE_VARINT);
      while (trak_pb_packed_next(&it, &v) == 1) {
      }
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  trak_pb_decoder dec;
  trak_pb_decoder_init(&dec, data, size);
  walk(&dec);

  trak_pb_buf text;
  trak_error err;
  trak_pb_buf_init_heap(&text);
  trak_pbtxt_print("Trace", data, size, &text, &err);
  trak_pb_buf_free(&text);
  return 0;
}
