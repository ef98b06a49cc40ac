/*
** libFuzzer target for the JSON trace-event importer and exporter: the input (given a '['
** when it does not start a JSON value itself) is fed in three chunks split where its first
** bytes say, imported, exported as JSON, and the export imported again, which must parse
** without a syntax error; it is also exported as protobuf (`trak convert trace.json out.pb`),
** which must import. Nothing may crash, leak or read out of bounds.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "processor/export/json_export.h"
#include "processor/export/pb_export.h"
#include "trak/processor.h"

static trak_processor *import(const uint8_t *data, size_t size, size_t a, size_t b) {
  trak_processor *p;
  if (trak_processor_new(NULL, &p, NULL)) return NULL;
  if (!size || (data[0] != '[' && data[0] != '{')) trak_processor_feed(p, "[", 1, NULL);
  trak_processor_feed(p, data, a, NULL);
  trak_processor_feed(p, data + a, b - a, NULL);
  trak_processor_feed(p, data + b, size - b, NULL);
  if (trak_processor_finish(p, NULL)) {
    trak_processor_free(p);
    return NULL;
  }
  return p;
}

/* The protobuf export of p must import again. */
static void check_pb_export(trak_processor *p) {
  trak_pb_buf bin;
  trak_pb_buf_init_heap(&bin);
  if (trak__pb_export(p, &bin, NULL)) abort();
  trak_processor *q;
  if (trak_processor_new(NULL, &q, NULL)) abort();
  if (trak_processor_feed(q, bin.start, trak_pb_buf_len(&bin), NULL) ||
      trak_processor_finish(q, NULL))
    abort();
  trak_processor_free(q);
  trak_pb_buf_free(&bin);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t a = size ? data[0] % (size + 1) : 0;
  size_t b = size > 1 ? a + data[1] % (size - a + 1) : a;
  trak_processor *p = import(data, size, a, b);
  if (!p) return 0;
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  if (f && trak__json_export(p, f, NULL, NULL, NULL) == 0) {
    fclose(f);
    f = NULL;
    trak_processor *q = import((const uint8_t *)out, len, len / 2, len);
    if (!q || trak_processor_stat_value(q, "json_tokenizer_failure") != 0) abort();
    trak_processor_free(q);
  }
  if (f) fclose(f);
  free(out);
  check_pb_export(p);
  trak_processor_free(p);
  return 0;
}
