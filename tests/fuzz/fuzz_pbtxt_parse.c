/*
** libFuzzer target for the text format parser. Any input must parse or fail cleanly. When it
** parses, its binary must print, and one print-parse cycle must reach a fixed point: text
** that wrote raw bytes by number for a known message field may hold non-canonical encodings
** that printing by name normalizes once; after that, printing and parsing change nothing.
** The lenient parse (skipping unknown names) must also fail cleanly or parse, and give the
** strict parse's bytes, skipping nothing, whenever the strict parse works.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trak/pbtxt.h"

/* Prints `bin` and parses the text back into `out`; aborts if either step fails. */
static void cycle(const trak_pb_buf *bin, trak_pb_buf *out) {
  trak_pb_buf text;
  trak_error err;
  trak_pb_buf_init_heap(&text);
  if (trak_pbtxt_print("Trace", bin->start, trak_pb_buf_len(bin), &text, &err)) abort();
  if (trak_pbtxt_parse("Trace", (const char *)text.start, trak_pb_buf_len(&text), out, &err))
    abort();
  trak_pb_buf_free(&text);
}

static void count_skip(void *user, int line, int column, const char *what) {
  (void)line, (void)column, (void)what;
  ++*(int *)user;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  trak_pb_buf bin, once, twice;
  trak_error err;
  trak_pb_buf_init_heap(&bin);
  trak_pb_buf_init_heap(&once);
  trak_pb_buf_init_heap(&twice);
  if (trak_pbtxt_parse("Trace", (const char *)data, size, &bin, &err) == 0) {
    cycle(&bin, &once);
    cycle(&once, &twice);
    size_t n = trak_pb_buf_len(&once);
    if (trak_pb_buf_len(&twice) != n || (n && memcmp(once.start, twice.start, n) != 0)) abort();
  }
  trak_pb_buf lenient;
  trak_pb_buf_init_heap(&lenient);
  int skipped = 0;
  int rc = trak_pbtxt_parse_lenient("Trace", (const char *)data, size, 1, 1, count_skip, &skipped,
                                    &lenient, &err);
  if (!skipped && !rc) {
    size_t n = trak_pb_buf_len(&lenient);
    if (n != trak_pb_buf_len(&bin) || (n && memcmp(lenient.start, bin.start, n) != 0)) abort();
  }
  trak_pb_buf_free(&lenient);
  trak_pb_buf_free(&bin);
  trak_pb_buf_free(&once);
  trak_pb_buf_free(&twice);
  return 0;
}
